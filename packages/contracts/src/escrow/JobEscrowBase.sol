// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {NodeRegistry} from "../NodeRegistry.sol";
import {VerificationQueue} from "../libraries/VerificationQueue.sol";

/// @notice The deployment parameters with the treasury resolved (0 = `deployer`).
function withTreasury(JobEscrowBase.Params memory p, address deployer) pure returns (JobEscrowBase.Params memory) {
    if (p.treasury == address(0)) p.treasury = deployer;
    return p;
}

/// @title JobEscrowBase
/// @notice Types, storage, events, errors and internal rules shared by JobEscrow and its settlement module
///         (JobEscrowSettlement runs by delegatecall on JobEscrow's storage; both inherit this layout).
abstract contract JobEscrowBase is ReentrancyGuard {
    using VerificationQueue for VerificationQueue.Queue;

    uint256 public constant BPS = 10_000;
    /// @notice Extra commit-window blocks for re-running the sample are capped at this.
    uint256 public constant MAX_RERUN_BLOCKS = 7_200;
    /// @notice Fewest verifiers a job may ask for. With one verifier its word alone would decide: a lone wrong
    ///         re-run (or a lie) would slash an honest processor, and without that slash a faked output would pay.
    ///         With two, one liar beside an honest verifier that caught a fake split the vote: the round restarted
    ///         with a new sample and nobody was slashed. With three, one liar is outvoted (docs/settlement.md,
    ///         Defences 8 and 24).
    uint256 public constant MIN_VERIFIERS = 3;
    /// @notice After its results are in (block submitBlock + 1), the submitter alone draws for free for this many
    ///         blocks; a later first draw by anyone else earns DRAW_BOUNTY_BPS of the submitter's bond, so watchers
    ///         fix the sample long before the 256-block window a re-roll would need runs out.
    uint256 public constant DRAW_GRACE_BLOCKS = 16;
    /// @notice The late-draw bounty, a share of the submitter's bond (5 %: 0.1 x fee at the default bond).
    uint256 public constant DRAW_BOUNTY_BPS = 500;
    /// @notice Blocks after the k-th verifier is assigned during which each verifier reveals its seed (the preimage
    ///         it committed before it was drawn). The sample entropy mixes every seed with the draw's blockhash, so
    ///         nobody can read or grind the sample before the last honest verifier revealed (docs/settlement.md).
    uint256 public constant SEED_WINDOW_BLOCKS = 32;

    enum Status {
        None,
        Open,
        Submitted,
        Released,
        Refunded
    }

    struct Params {
        uint8 maxVerifiers; // upper bound on k
        uint16 maxSampleLeaves; // upper bound on macroJobs * samples (leaves proven per round)
        uint32 commitWindow; // blocks, from the block the k-th verifier is assigned, plus the sample's re-run time
        uint32 revealWindow; // blocks, after the commit window
        uint32 secondsPerBlock; // to scale the commit window to the sample's estimated re-run time
        uint32 overheadMs; // task value: fixed per-job overhead (download, preparation, verification wait, upload), ms
        uint32 msPerMicroJob; // task value: network time of one MicroJob, ms (> 0)
        uint32 alphaBps; // verification queue max size = max(queueMin, activeNodes * alphaBps / 10000)
        uint32 queueMin;
        uint32 maxDeadline; // seconds from creation
        uint32 claimWindow; // seconds after release during which processors claim; then the rest is swept
        uint32 bondBps; // culprit slash and submitter bond, bps of the fee
        uint16 drawPenaltyBps; // share of the bond slashed when the draw window is missed
        uint96 minFee; // minimum fee per verifier share (wei)
        address treasury; // 0 = the deployer
    }

    struct CreateJobParams {
        string specCid;
        uint256 nonce;
        bytes32 jobRoot;
        uint256 seed;
        uint32 macroJobs;
        uint32 microJobsPerMacro;
        uint32 minVramGb;
        bytes32 gpuModel; // 0 = any
        bytes32 modelId; // 0 = none
        bool identicalHardware;
        uint8 k; // verifiers
        uint8 samples; // MicroJobs sampled per MacroJob (the verification level; = microJobsPerMacro is full)
        uint40 deadline; // unix seconds
        uint32 secondsPerMicroJob; // the creator's run-time hint: sizes the commit window only, not the task value
    }

    struct Job {
        // slot 0
        address creator;
        Status status;
        uint8 k;
        uint8 assigned; // verifiers assigned in this round
        uint8 commits;
        uint8 reveals;
        uint8 samples;
        bool proven;
        uint40 deadline;
        // slot 1..4
        bytes32 jobRoot;
        uint256 seed;
        bytes32 gpuModel;
        bytes32 modelId;
        // slot 5
        uint96 fee;
        uint32 macroJobs;
        uint32 microJobsPerMacro;
        uint32 minVramGb;
        uint32 secondsPerMicroJob;
        bool identical;
        uint8 rejections;
        bool entropySet; // the sample is fixed (all seeds revealed, or the seed window closed)
        // slot 6
        address submitter;
        uint40 submitBlock;
        uint40 commitDeadline; // block
        uint8 seeds; // verifier seeds revealed in this round
        // slot 7
        uint40 revealDeadline; // view only (block)
        uint40 releasedAt; // unix seconds
        uint32 drawCounter;
        uint96 processorPaid;
        uint40 seedDeadline; // block; the k-th verifier was assigned SEED_WINDOW_BLOCKS before it
        // slot 8..12
        bytes32 resultRoot;
        bytes32 sampleEntropy;
        bytes32 claimedHash; // keccak256(abi.encode(leaf hashes of the proven sample))
        bytes32 chosenModel;
        bytes32 drawEntropy; // blockhash(submitBlock + 1): draws the verifiers; the seeds then fix the sample
    }

    struct Verifier {
        address node;
        uint8 commitOrder;
        uint8 revealOrder;
        bool committed;
        bool revealed;
        uint16 badPos; // 0: the sample matched; else 1 + the first sample position that did not
        bool processorBlame; // for a mismatch: the processor signed the wrong output (else the submitter is blamed)
        uint32 digestTag; // the first 4 bytes of the revealed execution digest (a match counts with its own kind only)
        bool seeded; // revealed its seed in this round (a verifier without one may not vote)
    }

    /// @notice A node's committed verifier seed: keccak256(abi.encode(seed)), the block it was committed in (it
    ///         counts only for draws in later blocks), and the node's own index of the seed (+1 on each reveal).
    struct SeedCommit {
        bytes32 hash;
        uint40 blockNumber;
        uint32 index;
    }

    struct ResultLeaf {
        bytes32 microId;
        uint256 macroIndex;
        uint256 index;
        bytes32 outputHash;
        address payee;
    }

    /// @notice A verifier's reveal: its salt and blame bit, the leaf hashes it expected, the proven ones, and for a
    ///         mismatch the proven leaf at the first differing position.
    struct Reveal {
        bytes32 salt;
        bool processorBlame;
        /// @dev what only the re-runs yield: the digest of the sampled MicroJobs' executions (docs/settlement.md)
        bytes32 executionDigest;
        bytes32[] expected;
        bytes32[] proven;
        ResultLeaf badLeaf;
    }

    struct ResultCommit {
        bytes32 commitment;
        uint64 blockNumber;
    }

    NodeRegistry public immutable registry;
    address public immutable treasury;
    uint32 internal immutable _revealWindow;
    Params internal _params;

    mapping(bytes32 => Job) internal _jobs;
    mapping(bytes32 => mapping(uint256 => Verifier)) internal _verifiers;
    mapping(bytes32 => mapping(uint256 => bytes32)) internal _commitments;
    /// @dev jobId => verifier index => payee of the leaf it found wrong (written on a mismatch only)
    mapping(bytes32 => mapping(uint256 => address)) internal _culprits;
    mapping(bytes32 => mapping(address => ResultCommit)) public resultCommits;
    /// @dev jobId => word => bitmap of claimed result positions
    mapping(bytes32 => mapping(uint256 => uint256)) internal _claimed;
    mapping(address => uint256) public credits; // pull payments
    mapping(address => SeedCommit) public seedCommits;
    VerificationQueue.Queue internal _queue;

    // ---------------------------------------------------------------- events
    event JobCreated(
        bytes32 indexed jobId,
        address indexed creator,
        string specCid,
        uint256 fee,
        bytes32 jobRoot,
        uint256 deadline,
        uint256 taskValue
    );
    event ResultsCommitted(bytes32 indexed jobId, address indexed submitter, bytes32 commitment);
    event ResultsSubmitted(
        bytes32 indexed jobId, address indexed submitter, bytes32 resultRoot, string manifestCid, uint256 blockNumber
    );
    event EntropyReanchored(bytes32 indexed jobId, uint256 submitBlock, uint256 penalty);
    event DrawBountyPaid(bytes32 indexed jobId, address indexed drawer, uint256 amount);
    event DrawEntropySet(bytes32 indexed jobId, bytes32 drawEntropy);
    event SampleEntropySet(bytes32 indexed jobId, bytes32 sampleEntropy);
    event SeedCommitted(address indexed node, bytes32 hash, uint32 index);
    event SeedRevealed(bytes32 indexed jobId, address indexed verifier, bytes32 seed);
    event SeedMissed(bytes32 indexed jobId, address indexed verifier, uint256 penalty);
    event VerifierAssigned(bytes32 indexed jobId, address indexed verifier, uint256 index);
    event VerifiersSelected(bytes32 indexed jobId, uint256 commitDeadline, uint256 revealDeadline);
    event VerificationQueued(bytes32 indexed jobId, uint256 missing, uint256 taskValue);
    /// @notice A waiting verification left the full queue (the lowest task value, or no room for its group): the job
    ///         stays Submitted with no verifier; its submitter's next `selectVerifiers` tries again, and after the
    ///         deadline the creator may refund it.
    event VerificationParked(bytes32 indexed jobId, uint256 taskValue);
    event VerificationCommitted(bytes32 indexed jobId, address indexed verifier, uint256 order);
    event VerificationRevealed(bytes32 indexed jobId, address indexed verifier, uint256 badPos, bool processorBlame);
    event VerifierTimedOut(bytes32 indexed jobId, address indexed verifier, bool committed);
    event VerifierPenalised(bytes32 indexed jobId, address indexed verifier, uint256 amount);
    event SampleProven(bytes32 indexed jobId, bytes32 claimedHash, ResultLeaf[] leaves);
    event VerificationRestarted(bytes32 indexed jobId, uint256 submitBlock);
    event JobReleased(bytes32 indexed jobId, bytes32 claimedHash, uint256 matches, uint256 reveals);
    event JobRejected(
        bytes32 indexed jobId, address indexed culprit, uint256 slashed, address submitter, uint256 position
    );
    event JobReopened(bytes32 indexed jobId);
    event VerifierPaid(bytes32 indexed jobId, address indexed verifier, uint256 amount);
    event PaymentClaimed(bytes32 indexed jobId, address indexed payee, uint256 position, uint256 amount);
    event JobRefunded(bytes32 indexed jobId, address indexed creator, uint256 amount);
    event Swept(bytes32 indexed jobId, uint256 amount);
    event CreditWithdrawn(address indexed account, uint256 amount);

    // ---------------------------------------------------------------- errors
    error InvalidParams();
    error UnderfundedJob(uint256 sent, uint256 minFee);
    error FeeTooLarge();
    error EmptySpecCid();
    error EmptyRoot();
    error InvalidSlicing();
    error InvalidVerifierCount(uint256 k, uint256 min, uint256 max);
    error EvenVerifierCount(uint256 k);
    error InvalidSamples(uint256 samples, uint256 max);
    error InvalidDeadline();
    error IdenticalHardwareNeedsModel();
    error JobExists(bytes32 jobId);
    error UnknownJob(bytes32 jobId);
    error WrongStatus(bytes32 jobId, Status status);
    error DeadlinePassed();
    error DeadlineNotReached(uint256 deadline);
    error NotActiveNode(address node);
    error NoResultCommit();
    error TooManyRounds();
    error ResultCommitMismatch();
    error TooEarly(uint256 fromBlock);
    error VerifiersIncomplete();
    error NotVerifier(address account);
    error EmptyCommitment();
    error AlreadyCommitted();
    error CommitWindowClosed();
    error NotCommitted();
    error AlreadyRevealed();
    error RevealNotOpen();
    error RevealWindowClosed();
    error RevealMismatch();
    error SampleNotOpen();
    error SeedWindowClosed();
    error AlreadySeeded();
    error BadSeed();
    error NoSeed();
    error AlreadyProven();
    error ProveWindowClosed();
    error WrongSampleLength(uint256 got, uint256 expected);
    error WrongSampleLeaf(uint256 position);
    error InvalidProof();
    error SettleTooEarly(uint256 revealDeadline);
    error VerificationUnderway();
    error AlreadyClaimed(uint256 position);
    error ClaimWindowOpen(uint256 until);
    error ClaimWindowClosed();
    error NothingToWithdraw();
    error TransferFailed();
    error OnlyRegistry();



    modifier onlyRegistry() {
        if (msg.sender != address(registry)) revert OnlyRegistry();
        _;
    }

    constructor(NodeRegistry registry_, Params memory p) {
        if (address(registry_) == address(0) || p.maxVerifiers == 0 || p.commitWindow == 0 || p.revealWindow == 0
                || p.maxSampleLeaves == 0 || p.secondsPerBlock == 0 || p.msPerMicroJob == 0 || p.maxDeadline == 0 || p.drawPenaltyBps > BPS
                || p.treasury == address(0)) {
            revert InvalidParams();
        }
        registry = registry_;
        treasury = p.treasury;
        _revealWindow = p.revealWindow;
    }

    // ---------------------------------------------------------------- internals

    function _job(bytes32 jobId) internal view returns (Job storage j) {
        j = _jobs[jobId];
        if (j.status == Status.None) revert UnknownJob(jobId);
    }

    function _newVerifier(address node) internal pure returns (Verifier memory) {
        return Verifier({
            node: node, commitOrder: 0, revealOrder: 0, committed: false, revealed: false, badPos: 0,
            processorBlame: false, digestTag: 0, seeded: false
        });
    }

    function _processorPool(Job storage j) internal view returns (uint256) {
        uint256 per = j.microJobsPerMacro;
        if (per == 0) return 0;
        return uint256(j.fee) * per / (per + uint256(j.k) * j.samples);
    }

    function _verifierPool(Job storage j) internal view returns (uint256) {
        return uint256(j.fee) - _processorPool(j);
    }

    function _bond(Job storage j) internal view returns (uint256) {
        return uint256(j.fee) * _params.bondBps / BPS;
    }

    function _taskValue(Job storage j) internal view returns (uint256) {
        return _valueOf(j.fee, uint256(j.macroJobs) * j.microJobsPerMacro);
    }

    /// @dev Task value in wei per second: fee * 1000 / (overheadMs + microJobs * msPerMicroJob), floored. Only
    ///      network parameters enter the estimated time; msPerMicroJob > 0 (constructor), so the divisor is >= 1
    ///      for any job (microJobs >= 1).
    function _valueOf(uint256 fee, uint256 microJobs) internal view returns (uint256) {
        uint256 estimatedMs = uint256(_params.overheadMs) + microJobs * _params.msPerMicroJob;
        return fee * 1000 / estimatedMs;
    }

    function _revealDeadline(Job storage j) internal view returns (uint256) {
        uint256 cd = j.commitDeadline;
        return cd == 0 ? 0 : cd + _revealWindow;
    }

    function _commitPhaseOver(Job storage j) internal view returns (bool) {
        return j.assigned == j.k && (j.commits == j.k || block.number > j.commitDeadline);
    }

    function _verifierIndex(bytes32 jobId, Job storage j, address a) internal view returns (uint256) {
        uint256 n = j.assigned;
        for (uint256 i; i < n; ++i) {
            if (_verifiers[jobId][i].node == a) return i;
        }
        revert NotVerifier(a);
    }

    function _isVerifier(bytes32 jobId, uint256 assigned, address a) internal view returns (bool) {
        for (uint256 i; i < assigned; ++i) {
            if (_verifiers[jobId][i].node == a) return true;
        }
        return false;
    }

    function _resetRound(Job storage j) internal {
        j.assigned = 0;
        j.commits = 0;
        j.reveals = 0;
        j.proven = false;
        j.claimedHash = bytes32(0);
        j.sampleEntropy = bytes32(0);
        j.drawEntropy = bytes32(0);
        j.entropySet = false;
        j.seeds = 0;
        j.seedDeadline = 0;
        j.chosenModel = bytes32(0);
        j.commitDeadline = 0;
        j.drawCounter = 0;
    }

    function _send(address to, uint256 amount) internal {
        if (amount == 0) return;
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed();
    }
}
