// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {SumTree} from "./libraries/SumTree.sol";
import {QoS} from "./libraries/QoS.sol";
import {IJobEscrowHooks} from "./interfaces/IJobEscrowHooks.sol";

/// @title NodeRegistry
/// @notice Registry of jobmesh nodes: stake, hardware (GPU model, VRAM), QoS, pause/resume, exit with a cooldown,
///         kick-out and slashing. Keeps every eligible node's selection weight W in a sum tree over all nodes and in
///         one sum tree per GPU-model group, so a weighted verifier draw and a weight update cost O(log N) gas.
/// @dev Eligible = registered, not paused, not exiting, not kicked out, idle (not drawn), stake >= minStake.
///      W = S*Q/(SCALE+Q) with S = min(stake, stakeCap)*SCALE/stakeCap and Q = min(score, 2000)*SCALE/2000: linear in
///      the stake (below the cap), so splitting one stake over several nodes gives no more weight in total, and
///      saturating in the QoS score as the seed's harmonic shape does.
///      Stake is locked by the escrow while the node's submission is pending (withdraw waits for it); a node kicked
///      out for its QoS is banned for good, by address and by PeerId.
///      The job-dependent model multiplier M (2 when the node's last model is the job's model, else 1) is applied by
///      rejection in draw(): a matching node is always accepted, another with probability 1/2.
contract NodeRegistry is ReentrancyGuard {
    using SumTree for SumTree.Tree;

    // ---------------------------------------------------------------- constants, params
    uint256 public constant SCALE = 1e6;
    uint256 public constant BPS = 10_000;

    uint8 internal constant F_REGISTERED = 1;
    uint8 internal constant F_PAUSED = 2;
    uint8 internal constant F_EXITING = 4;
    uint8 internal constant F_KICKED = 8;
    uint8 internal constant F_BUSY = 16;
    uint8 internal constant F_COUNTED = 32; // counted as a member of its GPU group
    uint8 internal constant F_KNOWN = 64; // has tree slots from an earlier registration

    struct Params {
        uint96 minStake; // minimum stake to register / to be eligible (wei)
        uint96 stakeCap; // stake at which the stake score S saturates (wei)
        uint32 exitCooldown; // seconds between requestExit and withdraw
        uint16 maxDrawAttempts; // bound on rejection-sampling attempts per draw call
    }

    struct Node {
        uint96 stake;
        uint32 vramGb;
        uint32 slot; // leaf in the global tree
        uint32 groupSlot; // leaf in the group tree
        uint16 group; // 1-based GPU-model group id
        uint8 flags;
        uint40 exitAt; // unix seconds when withdraw becomes possible
        bytes32 gpuModel;
        bytes32 lastModel;
        bytes32 peerIdHash;
        uint256 qos; // QoS packed word
    }

    struct NodeView {
        bool registered;
        bool paused;
        bool exiting;
        bool kickedOut;
        bool busy;
        bool eligible;
        uint256 stake;
        uint32 vramGb;
        bytes32 gpuModel;
        bytes32 lastModel;
        bytes32 peerIdHash;
        uint256 exitAt;
        uint256 score;
        uint256 weight;
    }

    struct DrawRequest {
        bytes32 entropy;
        bytes32 jobId;
        uint32 counter; // position in the entropy stream
        uint8 need; // verifiers still needed
        uint32 minVram;
        bytes32 gpuModel; // required GPU model (0 = any)
        bytes32 modelId; // job's model (0 = none, no multiplier)
        bool identical; // all verifiers must share one GPU model
        address exclude; // the submitter
    }

    Params public params;
    address public immutable deployer;
    // params fields read on hot paths, as immutables (params never changes)
    uint96 internal immutable _minStake;
    uint96 internal immutable _stakeCap;
    uint16 internal immutable _maxDrawAttempts;
    address public escrow;

    mapping(address => Node) internal _nodes;
    mapping(bytes32 => address) public peerIdOwner;
    /// @notice Stake locked by the escrow (submission bonds).
    mapping(address => uint256) public lockedStake;
    /// @notice Kicked-out addresses and PeerId hashes (keccak256 of the PeerId string): never registered again.
    mapping(address => bool) public bannedAddress;
    mapping(bytes32 => bool) public bannedPeerId;
    /// @dev tree 0 = all nodes; tree g = GPU group g (1-based)
    mapping(uint256 => SumTree.Tree) internal _trees;
    mapping(uint256 => mapping(uint256 => address)) internal _slotOwner; // per tree: leaf -> node (size: tree size)
    SumTree.Tree internal _groupCounts; // leaf g-1 = number of member nodes of group g
    mapping(bytes32 => uint16) public groupOf; // gpuModel -> group id
    bytes32[] public groupModels; // group id - 1 -> gpuModel

    uint256 public activeNodes; // registered, not paused/exiting/kicked
    uint32 public maxVramGb;

    // ---------------------------------------------------------------- events
    event EscrowSet(address indexed escrow);
    event NodeRegistered(
        address indexed node, bytes32 indexed peerIdHash, string peerId, bytes32 gpuModel, uint32 vramGb, uint256 stake
    );
    event StakeAdded(address indexed node, uint256 amount, uint256 stake);
    event NodePaused(address indexed node);
    event NodeResumed(address indexed node);
    event ExitRequested(address indexed node, uint256 exitAt);
    event StakeWithdrawn(address indexed node, uint256 amount);
    event NodeSlashed(address indexed node, uint256 amount, uint256 stakeLeft);
    event NodeKickedOut(address indexed node, uint256 score);
    event StakeLocked(address indexed node, uint256 amount, uint256 locked);
    event TaskScoreRecorded(address indexed node, uint256 taskScore, uint256 windowScore);

    // ---------------------------------------------------------------- errors
    error OnlyEscrow();
    error OnlyDeployer();
    error EscrowAlreadySet();
    error ZeroAddress();
    error InvalidParams();
    error AlreadyRegistered(address node);
    error NotRegistered(address node);
    error InsufficientStake(uint256 sent, uint256 minStake);
    error StakeOverflow();
    error EmptyPeerId();
    error PeerIdTaken(bytes32 peerIdHash);
    error InvalidGpuModel();
    error ZeroVram();
    error ZeroAmount();
    error AlreadyPaused();
    error NotPaused();
    error NodeIsExiting();
    error ExitNotRequested();
    error CooldownNotOver(uint256 exitAt);
    error NodeIsBusy();
    error NodeIsKickedOut();
    error Banned();
    error InsufficientFreeStake(uint256 free, uint256 needed);
    error StakeIsLocked(uint256 locked);
    error TooManyGroups();
    error TransferFailed();

    modifier onlyEscrow() {
        if (msg.sender != escrow) revert OnlyEscrow();
        _;
    }

    constructor(Params memory p) {
        if (p.stakeCap == 0 || p.maxDrawAttempts == 0) revert InvalidParams();
        params = p;
        deployer = msg.sender;
        _minStake = p.minStake;
        _stakeCap = p.stakeCap;
        _maxDrawAttempts = p.maxDrawAttempts;
    }

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
    function register(string calldata peerId, bytes32 gpuModel, uint32 vramGb) external payable {
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
        peerIdOwner[ph] = msg.sender;

        uint16 g = groupOf[gpuModel];
        if (g == 0) {
            if (groupModels.length >= type(uint16).max) revert TooManyGroups();
            groupModels.push(gpuModel);
            g = uint16(groupModels.length);
            groupOf[gpuModel] = g;
            _groupCounts.push(0);
        }
        if (n.flags & F_KNOWN == 0) {
            uint256 s0 = _trees[0].push(0);
            n.slot = uint32(s0);
            _slotOwner[0][s0] = msg.sender;
            uint256 sg = _trees[g].push(0);
            n.groupSlot = uint32(sg);
            _slotOwner[g][sg] = msg.sender;
        } else if (n.group != g) {
            uint256 sg = _trees[g].push(0);
            n.groupSlot = uint32(sg);
            _slotOwner[g][sg] = msg.sender;
        }
        n.group = g;
        n.stake = uint96(msg.value);
        n.vramGb = vramGb;
        n.flags = F_REGISTERED | F_KNOWN;
        n.exitAt = 0;
        n.gpuModel = gpuModel;
        n.lastModel = bytes32(0);
        n.peerIdHash = ph;
        n.qos = 0;
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

    /// @notice Draws up to r.need distinct verifiers by weight (see contract notes) and marks them busy.
    /// @return drawn the drawn nodes; counter the next entropy-stream position; chosenModel the GPU model all
    ///         verifiers share (for identical-hardware or model-bound jobs; 0 otherwise).
    function draw(DrawRequest calldata r)
        external
        onlyEscrow
        returns (address[] memory drawn, uint32 counter, bytes32 chosenModel)
    {
        counter = r.counter;
        drawn = new address[](r.need);
        uint256 attempts = _maxDrawAttempts;
        uint256 treeId;
        if (r.gpuModel != bytes32(0)) {
            treeId = groupOf[r.gpuModel];
            chosenModel = r.gpuModel;
            if (treeId == 0) return (_trim(drawn, 0), counter, chosenModel);
        } else if (r.identical) {
            // pick a GPU group with probability proportional to its member count
            uint256 ct = _groupCounts.total();
            while (treeId == 0) {
                if (ct == 0 || attempts == 0) return (_trim(drawn, 0), counter, bytes32(0));
                --attempts;
                uint256 rnd = _rand(r.entropy, r.jobId, counter++);
                uint256 g = _groupCounts.find(rnd % ct) + 1;
                if (_trees[g].free() != 0) treeId = g;
            }
            chosenModel = groupModels[treeId - 1];
        }
        uint256 got;
        (got, counter) = _drawFrom(r, _trees[treeId], _slotOwner[treeId], attempts, counter, drawn);
        return (_trim(drawn, got), counter, chosenModel);
    }

    /// @dev The rejection loop of draw() over tree `t`. Busy nodes keep their weight in the trees, so a draw only
    ///      reads them; a busy node (drawn earlier, or by this call) is rejected like the submitter, a node with too
    ///      little VRAM or a lost model coin. `idle` = weight of idle eligible nodes not yet ruled out; the loop
    ///      stops when it is 0 (nothing drawable left) or after `attempts`.
    function _drawFrom(
        DrawRequest calldata r,
        SumTree.Tree storage t,
        mapping(uint256 => address) storage owners,
        uint256 attempts,
        uint32 counter,
        address[] memory drawn
    ) internal returns (uint256 got, uint32) {
        uint256 total = t.total();
        uint256 idle = total - t.held;
        bool excludedSeen;
        while (got < r.need && attempts != 0 && idle != 0) {
            --attempts;
            uint256 rnd = _rand(r.entropy, r.jobId, counter++);
            uint256 s = t.find(rnd % total);
            address a = owners[s];
            if (a == r.exclude) {
                // the submitter: rejected; once seen (idle), its weight no longer counts as drawable
                if (!excludedSeen && _nodes[a].flags & F_BUSY == 0) idle -= t.get(s);
                excludedSeen = true;
                continue;
            }
            if (!_accept(r, _nodes[a], rnd)) continue;
            s = t.get(s); // the node's weight
            idle -= s;
            _markBusy(_nodes[a], s);
            drawn[got++] = a;
        }
        return (got, counter);
    }

    /// @dev One attempt's acceptance of a node drawn from the tree (it is selectable, see _selectable).
    function _accept(DrawRequest calldata r, Node storage n, uint256 rnd) internal view returns (bool) {
        if (n.flags & F_BUSY != 0) return false;
        if (n.vramGb < r.minVram) return false;
        if (r.modelId != bytes32(0) && n.lastModel != r.modelId) {
            // accept a non-matching node with probability 1/2 (multiplier M = 1 vs 2)
            return uint256(keccak256(abi.encode(rnd))) & 1 == 1;
        }
        return true;
    }

    /// @notice Marks an eligible node busy for a queued verification; false if it is not eligible.
    function assign(address node) external onlyEscrow returns (bool) {
        Node storage n = _nodes[node];
        if (!_eligible(n)) return false;
        _markBusy(n, _trees[0].get(n.slot));
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
        bool wasBusy = n.flags & F_BUSY != 0;
        n.flags &= ~F_BUSY;
        if (modelId != bytes32(0)) n.lastModel = modelId;
        if (record && timedOutRounds >= 2 && n.flags & F_PAUSED == 0) {
            // silent for the whole task (not even a commitment): most likely offline; out of selection until it
            // resumes, so a restarted round does not draw it again
            n.flags |= F_PAUSED;
            emit NodePaused(node);
        }
        if (record) {
            (uint256 w, bool kick) = QoS.record(n.qos, taskScore, timedOutRounds);
            n.qos = w;
            emit TaskScoreRecorded(node, taskScore, QoS.score(w));
            if (kick && n.flags & F_KICKED == 0) {
                n.flags |= F_KICKED;
                bannedAddress[node] = true;
                bannedPeerId[n.peerIdHash] = true;
                emit NodeKickedOut(node, QoS.score(w));
            }
        }
        _syncNode(n, wasBusy);
        available = _eligible(n);
    }

    /// @notice Locks `amount` of a submitter's stake (its bond) until unlock(); notes its last model. The node must be
    ///         active, hold at least minStake and have `amount` of stake not locked yet.
    function lock(address node, uint256 amount, bytes32 modelId) external onlyEscrow {
        Node storage n = _nodes[node];
        uint8 f = n.flags;
        if (f & F_REGISTERED == 0 || f & (F_EXITING | F_KICKED) != 0) revert NotRegistered(node);
        uint256 stake = n.stake;
        if (stake < _minStake) revert InsufficientStake(stake, _minStake);
        uint256 locked = lockedStake[node];
        uint256 free = stake > locked ? stake - locked : 0;
        if (free < amount) revert InsufficientFreeStake(free, amount);
        lockedStake[node] = locked + amount;
        if (modelId != bytes32(0) && n.lastModel != modelId) n.lastModel = modelId;
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
        if (lockedStake[node] > stake - amount) lockedStake[node] = stake - amount;
        emit NodeSlashed(node, amount, n.stake);
        _sync(node);
        (bool ok,) = escrow.call{value: amount}("");
        if (!ok) revert TransferFailed();
        return amount;
    }

    // ---------------------------------------------------------------- views

    /// @notice Selection weight from stake and QoS score, exactly as the TypeScript core computes it.
    function selectionWeight(uint256 stake, uint256 score) public view returns (uint256) {
        uint256 cap = _stakeCap;
        uint256 s = (stake < cap ? stake : cap) * SCALE / cap;
        uint256 q = (score < QoS.MAX_TASK_SCORE ? score : QoS.MAX_TASK_SCORE) * SCALE / QoS.MAX_TASK_SCORE;
        return s * q / (SCALE + q);
    }

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

    /// @notice Timeout score P = (maxO - O) / (maxO - Omin), scaled by SCALE, where O = timed-out rounds in the QoS
    ///         window, Omin = 0 and maxO = 2 * WINDOW (two rounds per task).
    function timeoutScore(address node) external view returns (uint256) {
        uint256 maxO = 2 * QoS.WINDOW;
        return (maxO - QoS.timeouts(_nodes[node].qos)) * SCALE / maxO;
    }

    /// @notice Sum of the weights of eligible (idle) nodes.
    function totalWeight() external view returns (uint256) {
        return _trees[0].free();
    }

    /// @notice Sum of the weights of eligible (idle) nodes of a GPU group.
    function groupWeight(bytes32 gpuModel) external view returns (uint256) {
        uint16 g = groupOf[gpuModel];
        return g == 0 ? 0 : _trees[g].free();
    }

    /// @notice Member nodes (registered, not paused/exiting/kicked) of a GPU group.
    function groupCount(bytes32 gpuModel) external view returns (uint256) {
        uint16 g = groupOf[gpuModel];
        return g == 0 ? 0 : _groupCounts.get(g - 1);
    }

    function groupCountTotal() external view returns (uint256) {
        return _groupCounts.total();
    }

    function groupsLength() external view returns (uint256) {
        return groupModels.length;
    }

    function slotsLength() external view returns (uint256) {
        return _trees[0].size;
    }

    // ---------------------------------------------------------------- internals

    function _requireRegistered(address a) internal view returns (Node storage n) {
        n = _nodes[a];
        if (n.flags & F_REGISTERED == 0) revert NotRegistered(a);
    }

    function _eligible(Node storage n) internal view returns (bool) {
        uint8 f = n.flags;
        return f & (F_REGISTERED | F_PAUSED | F_EXITING | F_KICKED | F_BUSY) == F_REGISTERED
            && n.stake >= _minStake && n.stake != 0;
    }

    /// @dev Selectable = eligible except for the busy flag: the nodes whose W is in the trees.
    function _selectable(Node storage n) internal view returns (bool) {
        uint8 f = n.flags;
        return f & (F_REGISTERED | F_PAUSED | F_EXITING | F_KICKED) == F_REGISTERED && n.stake >= _minStake
            && n.stake != 0;
    }

    /// @dev The node's W if it is eligible (idle), else 0.
    function _treeWeight(Node storage n) internal view returns (uint256) {
        if (n.flags & (F_KNOWN | F_BUSY) != F_KNOWN) return 0;
        return _trees[0].get(n.slot);
    }

    function _rand(bytes32 entropy, bytes32 jobId, uint256 i) internal pure returns (uint256) {
        return uint256(keccak256(abi.encode(entropy, jobId, i)));
    }

    /// @dev Marks an eligible node busy. Its weight `w` stays in the trees (draws reject busy nodes) and is held
    ///      aside in the trees' busy total, so `free()` is the idle weight.
    function _markBusy(Node storage n, uint256 w) internal {
        n.flags |= F_BUSY;
        if (w != 0) {
            _trees[0].hold(w);
            _trees[n.group].hold(w);
        }
    }

    function _sync(address a) internal {
        Node storage n = _nodes[a];
        _syncNode(n, n.flags & F_BUSY != 0);
    }

    /// @dev Brings group membership count, tree weights and held (busy) weight in line with the node's state.
    ///      Invariant: a tree's held weight = the sum of the leaves of busy nodes. `heldBefore`: whether the node's
    ///      current leaf is counted in the held weight (it was busy before this state change).
    function _syncNode(Node storage n, bool heldBefore) internal {
        uint8 f = n.flags;
        bool member = f & (F_REGISTERED | F_PAUSED | F_EXITING | F_KICKED) == F_REGISTERED;
        bool counted = f & F_COUNTED != 0;
        if (member != counted) {
            uint256 c = _groupCounts.get(n.group - 1);
            if (member) {
                _groupCounts.update(n.group - 1, c + 1);
                n.flags = f | F_COUNTED;
                ++activeNodes;
            } else {
                _groupCounts.update(n.group - 1, c - 1);
                n.flags = f & ~F_COUNTED;
                --activeNodes;
            }
        }
        uint256 w = _selectable(n) ? selectionWeight(n.stake, QoS.score(n.qos)) : 0;
        SumTree.Tree storage t0 = _trees[0];
        SumTree.Tree storage tg = _trees[n.group];
        uint256 old = t0.get(n.slot);
        if (old != w) {
            t0.update(n.slot, w);
            tg.update(n.groupSlot, w);
        }
        uint256 hOld = heldBefore ? old : 0;
        uint256 hNew = n.flags & F_BUSY != 0 ? w : 0;
        if (hNew > hOld) {
            t0.hold(hNew - hOld);
            tg.hold(hNew - hOld);
        } else if (hOld > hNew) {
            t0.unhold(hOld - hNew);
            tg.unhold(hOld - hNew);
        }
    }

    function _notifyAvailable(address a) internal {
        address e = escrow;
        if (e != address(0) && _eligible(_nodes[a])) IJobEscrowHooks(e).onNodeAvailable(a);
    }

    function _trim(address[] memory arr, uint256 n) internal pure returns (address[] memory) {
        assembly ("memory-safe") {
            mstore(arr, n)
        }
        return arr;
    }
}
