// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SumTree} from "./libraries/SumTree.sol";
import {GroupTree} from "./libraries/GroupTree.sol";
import {QoS} from "./libraries/QoS.sol";
import {NodeRegistryBase} from "./registry/NodeRegistryBase.sol";
import {NodeRegistryDraw} from "./registry/NodeRegistryDraw.sol";
import {NodeRegistryProbes} from "./registry/NodeRegistryProbes.sol";
import {NodeRegistryTimeout} from "./registry/NodeRegistryTimeout.sol";

/// @title NodeRegistry
/// @notice Registry of jobmesh nodes: stake, hardware (GPU model, VRAM), QoS, pause/resume, exit with a cooldown,
///         kick-out and slashing. Nodes are graded into groups by (GPU model, VRAM tier); each group keeps the
///         selection weight W of its eligible nodes in a sum tree, and each tier a sum tree over the models' groups,
///         so a draw looks only at the groups a job may use. A draw finds an idle eligible node whenever one exists,
///         and a draw or a weight update costs O(log N) gas (docs/contracts.md).
/// @dev Eligible = registered, not paused, not exiting, not kicked out, idle (not drawn), stake >= minStake; only
///      eligible nodes have weight in the trees (a drawn node leaves them until it is released).
///      VRAM tiers: TIER_COUNT fixed sizes (TIERS_GB); a node's tier is the largest size <= its VRAM, and a node
///      serves a job iff its tier's size >= the job's minimum VRAM (its grade, not its exact VRAM, counts).
///      W = S*Q/(SCALE+Q) with S = min(stake, stakeCap)*SCALE/stakeCap and Q = min(score, 2000)*SCALE/2000: linear in
///      the stake (below the cap), so splitting one stake over several nodes gives no more weight in total, and
///      saturating in the QoS score as the seed's harmonic shape does.
///      Stake is locked by the escrow while the node's submission is pending (withdraw waits for it); a node kicked
///      out for its QoS is banned for good, by address and by PeerId.
///      The job-dependent model multiplier M (2 when the node's last model is the job's model, else 1) is applied by
///      a coin in draw(): a matching node is always accepted, another with probability 1/2, and the last of
///      maxDrawAttempts attempts for one verifier accepts whatever it drew.
///      Probe tasks (NodeRegistryProbes) keep the QoS score of idle nodes fresh; each node's timeout setting
///      (NodeRegistryTimeout) gives its timeout score P.
contract NodeRegistry is NodeRegistryDraw, NodeRegistryProbes, NodeRegistryTimeout {
    using SumTree for SumTree.Tree;

    constructor(Params memory p) NodeRegistryBase(p) {}

    /// @notice One-time wiring of the JobEscrow (by the deployer).
    function setEscrow(address e) external {
        if (msg.sender != deployer) revert OnlyDeployer();
        if (escrow != address(0)) revert EscrowAlreadySet();
        if (e == address(0)) revert ZeroAddress();
        escrow = e;
        emit EscrowSet(e);
    }

    // ---------------------------------------------------------------- node operator API

    /// @notice Registers msg.sender as a node with its libp2p PeerId, GPU model and VRAM; msg.value is the stake.
    ///         `peerId` must be the Ed25519 PeerId of `publicKey` (the raw 32-byte key), and `signature` the 64-byte
    ///         Ed25519 signature (RFC 8032) of peerBindingMessage(msg.sender) by that key: only the holder of the
    ///         PeerId's private key can bind it, to the address it chose, on this chain and registry.
    function register(
        string calldata peerId,
        bytes32 publicKey,
        bytes calldata signature,
        bytes32 gpuModel,
        uint32 vramGb
    ) external payable {
        Node storage n = _nodes[msg.sender];
        if (n.flags & F_REGISTERED != 0) revert AlreadyRegistered(msg.sender);
        if (msg.value < params.minStake || msg.value == 0) revert InsufficientStake(msg.value, params.minStake);
        if (msg.value > type(uint96).max) revert StakeOverflow();
        if (bytes(peerId).length == 0) revert EmptyPeerId();
        if (gpuModel == bytes32(0)) revert InvalidGpuModel();
        if (vramGb == 0) revert ZeroVram();
        bytes32 ph = keccak256(bytes(peerId));
        if (bannedAddress[msg.sender] || bannedPeerId[ph]) revert Banned();
        if (peerIdOwner[ph] != address(0)) revert PeerIdTaken(ph);
        _checkPeerIdProof(peerId, publicKey, signature);
        peerIdOwner[ph] = msg.sender;

        uint16 g = groupOf[gpuModel];
        if (g == 0) {
            if (groupModels.length >= type(uint16).max) revert TooManyGroups();
            groupModels.push(gpuModel);
            g = uint16(groupModels.length);
            groupOf[gpuModel] = g;
        }
        uint8 tier = uint8(_tierOf(vramGb));
        _enrolProbes(msg.sender, n.flags & F_KNOWN == 0);
        if (n.flags & F_KNOWN == 0) ++_knownNodes;
        if (n.flags & F_KNOWN == 0 || n.group != g || n.tier != tier) {
            // a new group: a new leaf (the old one, if any, is 0 since the node withdrew)
            uint256 key = _groupKey(g, tier);
            uint256 s = _trees[key].push(0);
            n.slot = uint32(s);
            _slotOwner[key][s] = msg.sender;
        }
        n.group = g;
        n.tier = tier;
        if (_tierMeta & (1 << tier) == 0) _tierMeta |= 1 << tier;
        if (_modelTierBits[g] & (1 << tier) == 0) _modelTierBits[g] |= 1 << tier;
        n.stake = uint96(msg.value);
        n.vramGb = vramGb;
        n.flags = F_REGISTERED | F_KNOWN;
        n.exitAt = 0;
        n.gpuModel = gpuModel;
        n.lastModel = bytes32(0);
        n.peerIdHash = ph;
        // n.qos is kept: a node that exits and registers again comes back with its QoS window, not a fresh score
        // (nine missed tasks, then an exit, wiped the score the tenth would have banned it for)
        if (vramGb > maxVramGb) maxVramGb = vramGb;
        emit NodeRegistered(msg.sender, ph, peerId, gpuModel, vramGb, msg.value);
        _sync(msg.sender);
        _notifyAvailable(msg.sender);
    }

    /// @notice Adds msg.value to the caller's stake.
    function addStake() external payable {
        Node storage n = _requireRegistered(msg.sender);
        if (msg.value == 0) revert ZeroAmount();
        uint256 s = uint256(n.stake) + msg.value;
        if (s > type(uint96).max) revert StakeOverflow();
        n.stake = uint96(s);
        emit StakeAdded(msg.sender, msg.value, s);
        bool before = _treeWeight(n) != 0;
        _sync(msg.sender);
        if (!before) _notifyAvailable(msg.sender);
    }

    /// @notice Takes the caller out of selection until resume().
    function pause() external {
        Node storage n = _requireRegistered(msg.sender);
        if (n.flags & F_PAUSED != 0) revert AlreadyPaused();
        n.flags |= F_PAUSED;
        emit NodePaused(msg.sender);
        _sync(msg.sender);
    }

    /// @notice Puts a paused node back into selection.
    function resume() external {
        Node storage n = _requireRegistered(msg.sender);
        if (n.flags & F_PAUSED == 0) revert NotPaused();
        if (n.flags & F_EXITING != 0) revert NodeIsExiting();
        n.flags &= ~F_PAUSED;
        emit NodeResumed(msg.sender);
        _sync(msg.sender);
        _notifyAvailable(msg.sender);
    }

    /// @notice Leaves selection now; the stake can be withdrawn after the exit cooldown.
    function requestExit() external {
        Node storage n = _requireRegistered(msg.sender);
        if (n.flags & F_EXITING != 0) revert NodeIsExiting();
        n.flags |= F_EXITING;
        uint256 exitTime = block.timestamp + params.exitCooldown;
        n.exitAt = uint40(exitTime);
        emit ExitRequested(msg.sender, exitTime);
        _sync(msg.sender);
    }

    /// @notice Withdraws the whole stake after the cooldown and unregisters the caller.
    function withdraw() external nonReentrant {
        Node storage n = _requireRegistered(msg.sender);
        if (n.flags & F_EXITING == 0) revert ExitNotRequested();
        if (block.timestamp < n.exitAt) revert CooldownNotOver(n.exitAt);
        if (n.flags & F_BUSY != 0) revert NodeIsBusy();
        if (lockedStake[msg.sender] != 0) revert StakeIsLocked(lockedStake[msg.sender]);
        uint256 amount = n.stake;
        n.stake = 0;
        n.flags = F_KNOWN; // keeps tree slots for a later re-registration
        delete peerIdOwner[n.peerIdHash];
        emit StakeWithdrawn(msg.sender, amount);
        if (amount != 0) {
            (bool ok,) = msg.sender.call{value: amount}("");
            if (!ok) revert TransferFailed();
        }
    }

    // ---------------------------------------------------------------- escrow API

    /// @notice Marks an eligible node busy for a queued verification; false if it is not eligible.
    function assign(address node) external onlyEscrow returns (bool) {
        Node storage n = _nodes[node];
        if (!_eligible(n)) return false;
        n.flags |= F_BUSY;
        _syncNode(n);
        return true;
    }

    /// @notice Ends a node's verification task: records its task score (when `record`), updates its last model,
    ///         puts it back into selection if still eligible (a node silent for the whole task is paused). Returns
    ///         whether it is eligible (available) now.
    function release(address node, uint256 taskScore, uint256 timedOutRounds, bool record, bytes32 modelId)
        external
        onlyEscrow
        returns (bool available)
    {
        Node storage n = _nodes[node];
        n.flags &= ~F_BUSY;
        // an exiting node's cooldown runs from its last release: the escrow's windows are in blocks, the cooldown in
        // seconds, and a verifier released at its reveal is slashed only at the settle (attacks/ExitCooldown.t.sol)
        if (n.flags & F_EXITING != 0) {
            uint256 t = block.timestamp + params.exitCooldown;
            if (t > n.exitAt) n.exitAt = uint40(t);
        }
        if (modelId != bytes32(0)) n.lastModel = modelId;
        if (record) _recordTask(node, n, taskScore, timedOutRounds);
        _syncNode(n);
        available = _eligible(n);
    }

    /// @notice Locks `amount` of a submitter's or payee's stake (its bond) until unlock(). The node must be active,
    ///         hold at least minStake and have `amount` of stake not locked yet. It does not touch the node's last
    ///         model: a submission set it until 2026-12-05, so a coalition bought the model multiplier for model X by
    ///         submitting a tiny job of X from each of its nodes (attacks/ModelMultiplier.t.sol); only a verification
    ///         revealed on a job of X (`release`) sets it now, and the draw, not the node, chooses who verifies.
    function lock(address node, uint256 amount) external onlyEscrow {
        Node storage n = _nodes[node];
        uint8 f = n.flags;
        if (f & F_REGISTERED == 0 || f & (F_EXITING | F_KICKED) != 0) revert NotRegistered(node);
        uint256 stake = n.stake;
        if (stake < _minStake) revert InsufficientStake(stake, _minStake);
        uint256 locked = lockedStake[node];
        uint256 free = stake > locked ? stake - locked : 0;
        if (free < amount) revert InsufficientFreeStake(free, amount);
        lockedStake[node] = locked + amount;
        emit StakeLocked(node, amount, locked + amount);
    }

    /// @notice Gives back up to `amount` of locked stake.
    function unlock(address node, uint256 amount) external onlyEscrow {
        uint256 locked = lockedStake[node];
        uint256 nl = locked > amount ? locked - amount : 0;
        if (nl != locked) {
            lockedStake[node] = nl;
            emit StakeLocked(node, 0, nl);
        }
    }

    /// @notice Slashes up to `amount` of the node's stake and sends it to the escrow. Returns the amount taken.
    function slash(address node, uint256 amount) external onlyEscrow nonReentrant returns (uint256) {
        Node storage n = _nodes[node];
        uint256 stake = n.stake;
        if (amount > stake) amount = stake;
        if (amount == 0) return 0;
        n.stake = uint96(stake - amount);
        // the locked stake is left as it is (it may exceed the stake now): each bond is given back by its own job's
        // unlock, and lowering it here let a later unlock free the bond of another job still submitted
        emit NodeSlashed(node, amount, n.stake);
        _sync(node);
        (bool ok,) = escrow.call{value: amount}("");
        if (!ok) revert TransferFailed();
        return amount;
    }

    // ---------------------------------------------------------------- views

    function nodeInfo(address node) external view returns (NodeView memory v) {
        Node storage n = _nodes[node];
        uint8 f = n.flags;
        v.registered = f & F_REGISTERED != 0;
        v.paused = f & F_PAUSED != 0;
        v.exiting = f & F_EXITING != 0;
        v.kickedOut = f & F_KICKED != 0;
        v.busy = f & F_BUSY != 0;
        v.eligible = _eligible(n);
        v.stake = n.stake;
        v.vramGb = n.vramGb;
        v.gpuModel = n.gpuModel;
        v.lastModel = n.lastModel;
        v.peerIdHash = n.peerIdHash;
        v.exitAt = n.exitAt;
        v.score = QoS.score(n.qos);
        v.weight = _treeWeight(n);
    }

    function isRegistered(address node) external view returns (bool) {
        return _nodes[node].flags & F_REGISTERED != 0;
    }

    /// @notice Registered and neither exiting nor kicked out (may submit results).
    function isActive(address node) external view returns (bool) {
        uint8 f = _nodes[node].flags;
        return f & F_REGISTERED != 0 && f & (F_EXITING | F_KICKED) == 0;
    }

    function isEligible(address node) external view returns (bool) {
        return _eligible(_nodes[node]);
    }

    function nodeHardware(address node) external view returns (bytes32 gpuModel, uint32 vramGb) {
        Node storage n = _nodes[node];
        return (n.gpuModel, n.vramGb);
    }

    /// @notice The weight currently in the sum trees (0 when not eligible).
    function weightOf(address node) external view returns (uint256) {
        return _treeWeight(_nodes[node]);
    }

    /// @notice Windowed QoS score in hundredths (1000 without history).
    function scoreOf(address node) external view returns (uint256) {
        return QoS.score(_nodes[node].qos);
    }

    /// @notice QoS state: score, tasks in window, low-score streak, timed-out rounds in window, kicked out.
    function qosState(address node)
        external
        view
        returns (uint256 score, uint256 tasks, uint256 lowStreak, uint256 timeouts, bool kickedOut)
    {
        Node storage n = _nodes[node];
        uint256 w = n.qos;
        return (QoS.score(w), QoS.count(w), QoS.lowStreak(w), QoS.timeouts(w), n.flags & F_KICKED != 0);
    }

    /// @notice VRAM score R = V / maxV, scaled by SCALE (maxV = the largest VRAM ever registered).
    function vramScore(address node) external view returns (uint256) {
        uint256 m = maxVramGb;
        return m == 0 ? 0 : uint256(_nodes[node].vramGb) * SCALE / m;
    }

    /// @notice Sum of the weights of eligible (idle) nodes.
    function totalWeight() external view returns (uint256 sum) {
        uint256 meta = _tierMeta;
        for (uint256 t; t < TIER_COUNT; ++t) sum += GroupTree.total(_tierTrees[t], _levels(meta, t));
    }

    /// @notice Sum of the weights of eligible (idle) nodes of a GPU model (all its tiers).
    function groupWeight(bytes32 gpuModel) external view returns (uint256 sum) {
        uint16 g = groupOf[gpuModel];
        if (g == 0) return 0;
        for (uint256 t; t < TIER_COUNT; ++t) sum += GroupTree.get(_tierTrees[t], g - 1);
    }

    /// @notice Sum of the weights of eligible (idle) nodes in VRAM tier `tier` of a GPU model (0: of all models).
    function tierWeight(bytes32 gpuModel, uint256 tier) external view returns (uint256) {
        if (tier >= TIER_COUNT) return 0;
        if (gpuModel == bytes32(0)) return GroupTree.total(_tierTrees[tier], _levels(_tierMeta, tier));
        uint16 g = groupOf[gpuModel];
        return g == 0 ? 0 : GroupTree.get(_tierTrees[tier], g - 1);
    }

    /// @notice The VRAM tier of `vramGb`: its index and size (the largest tier size <= vramGb).
    function vramTier(uint32 vramGb) external pure returns (uint256 tier, uint32 gradeGb) {
        tier = _tierOf(vramGb);
        gradeGb = uint32(_tierGb(tier));
    }

    /// @notice The node's GPU model and VRAM grade (its tier's size): it serves jobs with minVram <= gradeGb.
    function nodeGrade(address node) external view returns (bytes32 gpuModel, uint32 gradeGb) {
        Node storage n = _nodes[node];
        if (n.flags & F_KNOWN == 0) return (bytes32(0), 0);
        return (n.gpuModel, uint32(_tierGb(n.tier)));
    }

    /// @notice Member nodes (registered, not paused/exiting/kicked) of a GPU group.
    function groupCount(bytes32 gpuModel) external view returns (uint256) {
        uint16 g = groupOf[gpuModel];
        return g == 0 ? 0 : _memberCount[g];
    }

    function groupCountTotal() external view returns (uint256) {
        return activeNodes;
    }

    function groupsLength() external view returns (uint256) {
        return groupModels.length;
    }

    function slotsLength() external view returns (uint256) {
        return _knownNodes;
    }
}
