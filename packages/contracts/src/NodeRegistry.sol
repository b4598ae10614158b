// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {SumTree} from "./libraries/SumTree.sol";
import {GroupTree} from "./libraries/GroupTree.sol";
import {QoS} from "./libraries/QoS.sol";
import {IJobEscrowHooks} from "./interfaces/IJobEscrowHooks.sol";

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
    uint8 internal constant F_KNOWN = 64; // has a tree slot from an earlier registration

    /// @notice Number of VRAM tiers.
    uint256 public constant TIER_COUNT = 16;
    /// @dev Tier sizes in GB, 16 bits each, ascending: 1 4 6 8 10 12 16 20 24 32 40 48 64 80 96 128.
    uint256 internal constant TIERS_GB = 0x0080_0060_0050_0040_0030_0028_0020_0018_0014_0010_000c_000a_0008_0006_0004_0001;
    uint256 internal constant MASK85 = (1 << 85) - 1;

    struct Params {
        uint96 minStake; // minimum stake to register / to be eligible (wei)
        uint96 stakeCap; // stake at which the stake score S saturates (wei)
        uint32 exitCooldown; // seconds between requestExit and withdraw
        uint16 maxDrawAttempts; // bound on model-multiplier attempts per verifier (the last one accepts)
    }

    struct Node {
        uint96 stake;
        uint32 vramGb;
        uint32 slot; // leaf in its group's tree
        uint16 group; // 1-based GPU-model id
        uint8 tier; // VRAM tier index
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
    /// @dev node groups, key (model id << 8) | tier: each group's tree of its nodes' W, and leaf -> node
    mapping(uint256 => SumTree.Tree) internal _trees;
    mapping(uint256 => mapping(uint256 => address)) internal _slotOwner;
    /// @dev per tier: a GroupTree over the models, leaf g-1 = free weight of group (g, tier)
    mapping(uint256 => mapping(uint256 => uint256)) internal _tierTrees;
    /// @dev bits 0..15: tiers that ever had a node; bits 16 + 4t..: levels of tier t's GroupTree
    uint256 internal _tierMeta;
    /// @dev per model: bits of the tiers it ever had a node in
    mapping(uint256 => uint256) internal _modelTierBits;
    mapping(uint256 => uint256) internal _memberCount; // model id -> member nodes (registered, not paused/exiting/kicked)
    uint256 internal _knownNodes; // addresses that ever registered
    mapping(bytes32 => uint16) public groupOf; // gpuModel -> model id
    bytes32[] public groupModels; // model id - 1 -> gpuModel

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
        }
        uint8 tier = uint8(_tierOf(vramGb));
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

    /// @dev The submitter's weight, taken out of the draw without touching the trees (the finds count its leaf W
    ///      less: SumTree.findExcluding, GroupTree.find): its group and
    ///      leaf, and its W when it is idle in a tier the job may use (else 0).
    struct Exclusion {
        uint256 group;
        uint256 tier;
        uint256 slot;
        uint256 w;
    }

    /// @notice Draws up to r.need distinct verifiers by weight (see contract notes) and marks them busy. Looks only
    ///         at the groups the job may use: the required model's tiers >= minVram, or every model's; finds as
    ///         many idle eligible nodes as exist, up to r.need (for identical hardware without a required model:
    ///         within the model of the first one drawn).
    /// @return drawn the drawn nodes; counter the next entropy-stream position; chosenModel the GPU model all
    ///         verifiers share (for identical-hardware or model-bound jobs; 0 otherwise).
    function draw(DrawRequest calldata r)
        external
        onlyEscrow
        returns (address[] memory drawn, uint32 counter, bytes32 chosenModel)
    {
        counter = r.counter;
        drawn = new address[](r.need);
        uint256 minTier = _minTier(r.minVram);
        uint256 m;
        if (r.gpuModel != bytes32(0)) {
            m = groupOf[r.gpuModel];
            chosenModel = r.gpuModel;
            if (m == 0) return (_trim(drawn, 0), counter, chosenModel);
        }
        if (minTier == TIER_COUNT) return (_trim(drawn, 0), counter, chosenModel);
        Exclusion memory ex;
        Node storage sub = _nodes[r.exclude];
        if (r.exclude != address(0) && sub.flags & F_KNOWN != 0 && sub.tier >= minTier) {
            ex = Exclusion(sub.group, sub.tier, sub.slot, _trees[_groupKey(sub.group, sub.tier)].leaf(sub.slot));
        }
        uint256 got;
        while (got < r.need) {
            address a;
            (a, counter) = _drawOne(r, minTier, m, ex, counter);
            if (a == address(0)) break;
            drawn[got++] = a;
            Node storage n = _nodes[a];
            n.flags |= F_BUSY;
            _syncNode(n); // out of the trees until released
            if (m == 0 && r.identical) {
                m = n.group;
                chosenModel = groupModels[m - 1];
            }
        }
        return (_trim(drawn, got), counter, chosenModel);
    }

    /// @dev One verifier: a weighted pick among the eligible groups' free weight (minus the submitter's), then the
    ///      model coin; at most maxDrawAttempts picks, the last one accepted. address(0) iff no free weight is left.
    function _drawOne(DrawRequest calldata r, uint256 minTier, uint256 m, Exclusion memory ex, uint32 counter)
        internal
        view
        returns (address a, uint32 next)
    {
        next = counter;
        for (uint256 attempt = 1;; ++attempt) {
            uint256 rnd = _rand(r.entropy, r.jobId, next);
            a = _pick(rnd, minTier, m, ex);
            if (a == address(0)) return (a, next); // nothing left: the stream position is not used
            ++next;
            if (r.modelId == bytes32(0) || attempt >= _maxDrawAttempts) return (a, next);
            // multiplier M: a node whose last model is the job's is always accepted, another with probability 1/2
            if (_nodes[a].lastModel == r.modelId || uint256(keccak256(abi.encode(rnd))) & 1 == 1) return (a, next);
        }
    }

    /// @dev A node with probability W / (free weight of the eligible groups, minus the submitter's): a tier by its
    ///      free weight (of model m, or of all models), a model in the tier (when m == 0), a node in the group. Each
    ///      level uses its own 85 bits of `rnd`.
    function _pick(uint256 rnd, uint256 minTier, uint256 m, Exclusion memory ex) internal view returns (address) {
        uint256 exTier = ex.w != 0 && (m == 0 || m == ex.group) ? ex.tier : TIER_COUNT;
        uint256 t = _pickTier(minTier, m, exTier, ex.w, rnd & MASK85);
        if (t == TIER_COUNT) return address(0);
        uint256 d = t == exTier ? ex.w : 0;
        if (m == 0) m = _pickModel(t, d, ex.group, (rnd >> 85) & MASK85);
        return _pickNode(m, t, m == ex.group ? d : 0, ex.slot, rnd >> 170);
    }

    /// @dev A model in tier t by its group's free weight (model exGroup counted d less). Returns the model id.
    function _pickModel(uint256 t, uint256 d, uint256 exGroup, uint256 x) internal view returns (uint256) {
        uint256 lv = _levels(_tierMeta, t);
        mapping(uint256 => uint256) storage tt = _tierTrees[t];
        return GroupTree.find(tt, lv, x % (GroupTree.total(tt, lv) - d), d == 0 ? 0 : exGroup - 1, d) + 1;
    }

    /// @dev A node of group (g, t) by its W (leaf exSlot counted d less).
    function _pickNode(uint256 g, uint256 t, uint256 d, uint256 exSlot, uint256 y) internal view returns (address) {
        uint256 key = _groupKey(g, t);
        SumTree.Tree storage gt = _trees[key];
        return _slotOwner[key][gt.findExcluding(y % (gt.total() - d), exSlot, d)];
    }

    /// @dev A tier >= minTier by its free weight: of all models (a GroupTree total per tier in use) or of model m
    ///      (its leaf in each tier it was ever in); tier exTier counts exW less. O(TIER_COUNT) reads at most.
    ///      TIER_COUNT when no free weight is left.
    function _pickTier(uint256 minTier, uint256 m, uint256 exTier, uint256 exW, uint256 x)
        internal
        view
        returns (uint256 t)
    {
        uint256 meta = _tierMeta;
        uint256 bits = (m == 0 ? meta : _modelTierBits[m]) & 0xffff;
        bits = bits >> minTier << minTier;
        if (bits == 0) return TIER_COUNT;
        uint256[16] memory w;
        uint256 sum;
        for (t = minTier; t < TIER_COUNT; ++t) {
            if (bits >> t & 1 == 0) continue;
            uint256 v = m == 0 ? GroupTree.total(_tierTrees[t], _levels(meta, t)) : GroupTree.get(_tierTrees[t], m - 1);
            if (t == exTier) v -= exW;
            w[t] = v;
            sum += v;
        }
        if (sum == 0) return TIER_COUNT;
        x %= sum;
        for (t = minTier;; ++t) {
            uint256 v = w[t];
            if (x < v) return t;
            x -= v;
        }
    }

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
        _syncNode(n);
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

    /// @dev The node's W if it is eligible (idle), else 0: its leaf.
    function _treeWeight(Node storage n) internal view returns (uint256) {
        if (n.flags & F_KNOWN == 0) return 0;
        return _trees[_groupKey(n.group, n.tier)].get(n.slot);
    }

    function _rand(bytes32 entropy, bytes32 jobId, uint256 i) internal pure returns (uint256) {
        return uint256(keccak256(abi.encode(entropy, jobId, i)));
    }

    function _sync(address a) internal {
        _syncNode(_nodes[a]);
    }

    /// @dev Brings the member count and the node's leaf in line with its state: W when eligible (idle), else 0;
    ///      a change of the leaf is carried to the group's leaf in its tier's GroupTree (O(log G)), so each tier's
    ///      tree stays the sum of its groups' trees.
    function _syncNode(Node storage n) internal {
        uint8 f = n.flags;
        uint256 g = n.group;
        bool member = f & (F_REGISTERED | F_PAUSED | F_EXITING | F_KICKED) == F_REGISTERED;
        if (member != (f & F_COUNTED != 0)) {
            if (member) {
                ++_memberCount[g];
                n.flags = f | F_COUNTED;
                ++activeNodes;
            } else {
                --_memberCount[g];
                n.flags = f & ~F_COUNTED;
                --activeNodes;
            }
        }
        uint256 w = _eligible(n) ? selectionWeight(n.stake, QoS.score(n.qos)) : 0;
        uint256 t = n.tier;
        SumTree.Tree storage gt = _trees[_groupKey(g, t)];
        uint256 old = gt.get(n.slot);
        if (old == w) return;
        gt.update(n.slot, w);
        bool sub = w < old;
        uint256 d = sub ? old - w : w - old;
        uint256 meta = _tierMeta;
        uint256 lv = _levels(meta, t);
        uint256 nlv = GroupTree.add(_tierTrees[t], lv, g - 1, d, sub);
        if (nlv != lv) _tierMeta = (meta & ~(uint256(15) << (16 + 4 * t))) | (nlv << (16 + 4 * t));
    }

    function _groupKey(uint256 g, uint256 tier) internal pure returns (uint256) {
        return (g << 8) | tier;
    }

    /// @dev Size in GB of tier `t`.
    function _tierGb(uint256 t) internal pure returns (uint256) {
        return (TIERS_GB >> (t << 4)) & 0xffff;
    }

    /// @dev The largest tier whose size is <= vramGb (tier 0 for anything below the second size).
    function _tierOf(uint256 vramGb) internal pure returns (uint256 t) {
        while (t + 1 < TIER_COUNT && _tierGb(t + 1) <= vramGb) ++t;
    }

    /// @dev The first tier whose size is >= minVram (TIER_COUNT if none).
    function _minTier(uint256 minVram) internal pure returns (uint256 t) {
        while (t < TIER_COUNT && _tierGb(t) < minVram) ++t;
    }

    /// @dev Levels of tier t's GroupTree, from the packed meta word.
    function _levels(uint256 meta, uint256 t) internal pure returns (uint256) {
        return (meta >> (16 + 4 * t)) & 15;
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
