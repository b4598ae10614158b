// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {SumTree} from "../libraries/SumTree.sol";
import {GroupTree} from "../libraries/GroupTree.sol";
import {QoS} from "../libraries/QoS.sol";
import {Ed25519} from "../libraries/Ed25519.sol";
import {PeerId} from "../libraries/PeerId.sol";
import {IJobEscrowHooks} from "../interfaces/IJobEscrowHooks.sol";

/// @title NodeRegistryBase
/// @notice Types, storage, events, errors and the internal rules of NodeRegistry (docs/contracts.md): eligibility,
///         the selection weight, and keeping each (GPU model, VRAM tier) group's sum tree and each tier's tree over
///         the models in line with a node's state. NodeRegistryDraw draws from those trees; NodeRegistry is the API.
abstract contract NodeRegistryBase is ReentrancyGuard {
    using SumTree for SumTree.Tree;

    // ---------------------------------------------------------------- constants, params
    uint256 public constant SCALE = 1e6;
    uint256 public constant BPS = 10_000;
    /// @notice Domain of the message a node signs with its PeerId's key to register (peerBindingMessage).
    bytes public constant PEER_BINDING_DOMAIN = "jobmesh/peer-binding/v1";

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
        uint32 probeInterval; // seconds without a task after which an active node is due a probe
    }

    /// @dev A node's probe state: when its last task (or probe) was scored, and its open probe, if any.
    struct Probe {
        uint40 lastTask; // unix seconds: registration, or the last recorded task score
        uint40 block; // block of the open probe's assignment (0: none open)
        bytes32 challenge;
    }

    struct Node {
        uint96 stake;
        uint32 vramGb;
        uint32 slot; // leaf in its group's tree
        uint16 group; // 1-based GPU-model id
        uint8 tier; // VRAM tier index
        uint8 flags;
        uint8 timeoutPct; // the node's timeout setting (NodeRegistryTimeout); 0: never set (100)
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
    uint32 internal immutable _probeInterval;
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
    /// @dev probes: per node, and every address that ever registered, scanned round-robin from the cursor
    mapping(address => Probe) internal _probes;
    address[] internal _probeList;
    uint256 public probeCursor;
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
    /// @notice A probe for `node`: answer with a nonce such that keccak256(abi.encode(challenge, node, nonce)) has
    ///         PROBE_DIFFICULTY leading zero bits, by block `deadline`.
    event ProbeAssigned(address indexed node, bytes32 challenge, uint256 deadline);
    event ProbeAnswered(address indexed node, uint256 blocks, uint256 taskScore);
    event ProbeMissed(address indexed node);
    event TimeoutSet(address indexed node, uint256 pct);

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
    /// @notice The PeerId string is not the canonical Ed25519 PeerId of the given public key.
    error PeerIdKeyMismatch();
    /// @notice The signature is not a valid Ed25519 signature of peerBindingMessage(msg.sender) by the given key.
    error BadPeerIdProof();
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
    error NoOpenProbe();
    error ProbeExpired(uint256 deadline);
    error BadProbeAnswer();
    error InvalidTimeout(uint256 pct);

    /// @notice The message a node signs with its PeerId's key to register as `owner`: the domain, this chain's id, this
    ///         registry and the owner (abi.encodePacked: 23 + 32 + 20 + 20 bytes), so that a proof is good for one
    ///         address on one registry of one chain only.
    function peerBindingMessage(address owner) public view returns (bytes memory) {
        return abi.encodePacked(PEER_BINDING_DOMAIN, block.chainid, address(this), owner);
    }

    /// @dev The proof that msg.sender holds the key of `peerId` (docs/contracts.md, "PeerId binding"); ~0.45M gas.
    function _checkPeerIdProof(string calldata peerId, bytes32 publicKey, bytes calldata signature)
        internal
        view
        virtual
    {
        if (!PeerId.isEd25519PeerId(bytes(peerId), publicKey)) revert PeerIdKeyMismatch();
        if (signature.length != 64) revert BadPeerIdProof();
        if (!Ed25519.verify(publicKey, bytes32(signature[:32]), bytes32(signature[32:]), peerBindingMessage(msg.sender))) {
            revert BadPeerIdProof();
        }
    }

    modifier onlyEscrow() {
        if (msg.sender != escrow) revert OnlyEscrow();
        _;
    }

    constructor(Params memory p) {
        if (p.stakeCap == 0 || p.maxDrawAttempts == 0 || p.probeInterval == 0) revert InvalidParams();
        params = p;
        deployer = msg.sender;
        _minStake = p.minStake;
        _stakeCap = p.stakeCap;
        _maxDrawAttempts = p.maxDrawAttempts;
        _probeInterval = p.probeInterval;
    }

    /// @notice Selection weight from stake and QoS score, exactly as the TypeScript core computes it.
    function selectionWeight(uint256 stake, uint256 score) public view returns (uint256) {
        uint256 cap = _stakeCap;
        uint256 s = (stake < cap ? stake : cap) * SCALE / cap;
        uint256 q = (score < QoS.MAX_TASK_SCORE ? score : QoS.MAX_TASK_SCORE) * SCALE / QoS.MAX_TASK_SCORE;
        return s * q / (SCALE + q);
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

    /// @dev Records a task score (a verification or a probe): the QoS window, the kick-out (and ban) below the
    ///      threshold, and a pause for a node silent for the whole task (2 timed-out rounds: most likely offline; out
    ///      of selection until it resumes, so a restarted round does not draw it again). The caller syncs the node.
    function _recordTask(address node, Node storage n, uint256 taskScore, uint256 timedOutRounds) internal {
        if (timedOutRounds >= 2 && n.flags & F_PAUSED == 0) {
            n.flags |= F_PAUSED;
            emit NodePaused(node);
        }
        (uint256 w, bool kick) = QoS.record(n.qos, taskScore, timedOutRounds);
        n.qos = w;
        _probes[node].lastTask = uint40(block.timestamp);
        emit TaskScoreRecorded(node, taskScore, QoS.score(w));
        if (kick && n.flags & F_KICKED == 0) {
            n.flags |= F_KICKED;
            bannedAddress[node] = true;
            bannedPeerId[n.peerIdHash] = true;
            emit NodeKickedOut(node, QoS.score(w));
        }
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
