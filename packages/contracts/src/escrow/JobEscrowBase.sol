// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {NodeRegistry} from "../NodeRegistry.sol";
import {QoS} from "../libraries/QoS.sol";
import {Encoding} from "../libraries/Encoding.sol";
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
    ///         re-run (or a lie) would slash an honest processor, and without that slash cheating would pay
    ///         (docs/settlement.md, "Why k >= 2"). With two, a rejection needs both; a split vote restarts the round.
    uint256 public constant MIN_VERIFIERS = 2;

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
        bool entropySet; // view only
        // slot 6
        address submitter;
        uint40 submitBlock;
        uint40 commitDeadline; // block
        // slot 7
        uint40 revealDeadline; // view only (block)
        uint40 releasedAt; // unix seconds
        uint32 drawCounter;
        uint96 processorPaid;
        // slot 8..11
        bytes32 resultRoot;
        bytes32 sampleEntropy;
        bytes32 claimedHash; // keccak256(abi.encode(leaf hashes of the proven sample))
        bytes32 chosenModel;
    }

    struct Verifier {
        address node;
        uint8 commitOrder;
        uint8 revealOrder;
        bool committed;
        bool revealed;
        uint16 badPos; // 0: the sample matched; else 1 + the first sample position that did not
        bool processorBlame; // for a mismatch: the processor signed the wrong output (else the submitter is blamed)
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
    event SampleEntropySet(bytes32 indexed jobId, bytes32 sampleEntropy);
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
    error InvalidSamples(uint256 samples, uint256 max);
    error InvalidDeadline();
    error JobExists(bytes32 jobId);
    error UnknownJob(bytes32 jobId);
    error WrongStatus(bytes32 jobId, Status status);
    error DeadlinePassed();
    error DeadlineNotReached(uint256 deadline);
    error NotActiveNode(address node);
    error NoResultCommit();
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
    error AlreadyProven();
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

    struct Tally {
        uint256 matches;
        uint256 bad; // the sample position (1-based) a majority found wrong, 0 if none
        bool blame; // the majority of those blame the processor
        address payee; // payee of that leaf
    }

    struct SampleCtx {
        uint256 samples;
        uint256 per;
        uint256 depth;
        uint256 seed;
        bytes32 entropy;
        bytes32 root;
    }

    function _checkSampleLeaf(
        bytes32 jobId,
        SampleCtx memory c,
        uint256 pos,
        ResultLeaf calldata l,
        bytes32[] calldata proof
    ) internal pure returns (bytes32 h) {
        uint256 m = pos / c.samples;
        uint256 idx = (Encoding.validationIndex(c.seed, m, c.entropy, c.per) + pos % c.samples) % c.per;
        if (l.macroIndex != m || l.index != idx || l.microId != Encoding.microId(c.seed, jobId, m, idx)) {
            revert WrongSampleLeaf(pos);
        }
        h = Encoding.resultLeaf(l.microId, m, idx, l.outputHash, l.payee);
        if (!Encoding.verifyAt(proof, c.root, h, m * c.per + idx, c.depth)) revert InvalidProof();
    }

    /// @dev Checks one claimed leaf (c.samples holds the MacroJob count here) and marks its position claimed.
    function _claimLeaf(
        bytes32 jobId,
        SampleCtx memory c,
        ResultLeaf calldata l,
        bytes32[] calldata proof,
        uint256 each
    ) internal returns (address) {
        uint256 pos = l.macroIndex * c.per + l.index;
        if (l.macroIndex >= c.samples || l.index >= c.per || l.payee == address(0)
                || l.microId != Encoding.microId(c.seed, jobId, l.macroIndex, l.index)) revert WrongSampleLeaf(pos);
        uint256 bit = uint256(1) << (pos & 255);
        uint256 word = _claimed[jobId][pos >> 8];
        if (word & bit != 0) revert AlreadyClaimed(pos);
        bytes32 h = Encoding.resultLeaf(l.microId, l.macroIndex, l.index, l.outputHash, l.payee);
        if (!Encoding.verifyAt(proof, c.root, h, pos, c.depth)) revert InvalidProof();
        _claimed[jobId][pos >> 8] = word | bit;
        emit PaymentClaimed(jobId, l.payee, pos, each);
        return l.payee;
    }

    /// @dev Checks a reveal against the verifier's commitment and the proven sample; returns the vote (0 = match,
    ///      else 1 + the first position where the expected leaf differs).
    function _checkReveal(bytes32 claimedHash, bytes32 commitment_, Reveal calldata r) internal view returns (uint256) {
        uint256 n = r.expected.length;
        if (n != r.proven.length) revert WrongSampleLength(n, r.proven.length);
        if (keccak256(abi.encode(r.proven)) != claimedHash) revert WrongSampleLeaf(type(uint256).max);
        if (Encoding.commitment(keccak256(abi.encode(r.expected)), r.processorBlame, r.salt, msg.sender) != commitment_) {
            revert RevealMismatch();
        }
        for (uint256 p; p < n; ++p) {
            if (r.expected[p] != r.proven[p]) {
                ResultLeaf calldata l = r.badLeaf;
                if (Encoding.resultLeaf(l.microId, l.macroIndex, l.index, l.outputHash, l.payee) != r.proven[p]) {
                    revert WrongSampleLeaf(p);
                }
                return p + 1;
            }
        }
        return 0;
    }

    function _queueMaxSize() internal view returns (uint256) {
        uint256 s = registry.activeNodes() * _params.alphaBps / BPS;
        return s < _params.queueMin ? _params.queueMin : s;
    }

    function _job(bytes32 jobId) internal view returns (Job storage j) {
        j = _jobs[jobId];
        if (j.status == Status.None) revert UnknownJob(jobId);
    }

    function _newVerifier(address node) internal pure returns (Verifier memory) {
        return Verifier({
            node: node, commitOrder: 0, revealOrder: 0, committed: false, revealed: false, badPos: 0,
            processorBlame: false
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

    function _tally(bytes32 jobId, uint256 k) internal view returns (Tally memory t) {
        for (uint256 i; i < k; ++i) {
            Verifier storage v = _verifiers[jobId][i];
            if (!v.revealed) continue;
            uint256 b = v.badPos;
            if (b == 0) {
                ++t.matches;
                continue;
            }
            if (t.bad != 0) continue;
            uint256 votes;
            uint256 blames;
            for (uint256 x; x < k; ++x) {
                Verifier storage w = _verifiers[jobId][x];
                if (w.revealed && w.badPos == b) {
                    ++votes;
                    if (w.processorBlame) ++blames;
                }
            }
            if (votes * 2 > k) {
                t.bad = b;
                t.blame = blames * 2 > votes;
                t.payee = _culprits[jobId][i];
            }
        }
    }

    function _reject(bytes32 jobId, Job storage j, uint256 k, Tally memory t) internal {
        address submitter = j.submitter;
        address culprit = submitter;
        if (t.blame && t.payee != address(0) && registry.isRegistered(t.payee)) culprit = t.payee;
        uint256 bond = _bond(j);
        uint256 slashed = registry.slash(culprit, bond);
        registry.unlock(submitter, bond);
        // verifiers that found the fault (all that committed when nobody proved the sample) get their share
        _payRound(jobId, j, k, t.bad == 0 ? type(uint256).max - 1 : t.bad, false, slashed);
        j.status = Status.Open;
        j.rejections += 1;
        j.submitter = address(0);
        j.resultRoot = bytes32(0);
        _resetRound(j);
        emit JobRejected(jobId, culprit, slashed, submitter, t.bad == 0 ? type(uint256).max : t.bad - 1);
        emit JobReopened(jobId);
    }

    /// @dev Pays one verifier share to each verifier on the winning side (`side`: 0 = matched, a sample position =
    ///      found that leaf wrong, max - 1 = committed (unproven sample), max = revealed) from `budget`, plus the
    ///      penalties of the others when `penaltiesFund`; slashes one share from each other verifier; what is left
    ///      goes to the treasury.
    function _payRound(bytes32 jobId, Job storage j, uint256 k, uint256 side, bool penaltiesFund, uint256 budget)
        internal
    {
        uint256 share = _verifierPool(j) / k;
        bool[] memory win = new bool[](k);
        uint256 penalties;
        for (uint256 i; i < k; ++i) {
            Verifier storage v = _verifiers[jobId][i];
            if (side == type(uint256).max) win[i] = v.revealed;
            else if (side == type(uint256).max - 1) win[i] = v.committed;
            else win[i] = v.revealed && v.badPos == side;
            if (win[i]) continue;
            uint256 p = registry.slash(v.node, share);
            if (p != 0) {
                penalties += p;
                emit VerifierPenalised(jobId, v.node, p);
            }
        }
        if (penaltiesFund) budget += penalties;
        else credits[treasury] += penalties;
        for (uint256 i; i < k && budget != 0; ++i) {
            if (!win[i]) continue;
            uint256 amt = share < budget ? share : budget;
            address node = _verifiers[jobId][i].node;
            credits[node] += amt;
            budget -= amt;
            emit VerifierPaid(jobId, node, amt);
        }
        if (budget != 0) credits[treasury] += budget;
    }

    /// @dev Ends the unrevealed verifiers' tasks (QoS round score 0 for what they missed). Returns the freed ones.
    function _timeOut(bytes32 jobId, Job storage j, uint256 k) internal returns (address[] memory freed, uint256 n) {
        if (j.reveals == k) return (freed, 0);
        freed = new address[](k);
        for (uint256 i; i < k; ++i) {
            Verifier storage v = _verifiers[jobId][i];
            if (v.revealed) continue;
            bool c = v.committed;
            emit VerifierTimedOut(jobId, v.node, c);
            if (registry.release(v.node, c ? QoS.roundScore(v.commitOrder) : 0, c ? 1 : 2, true, bytes32(0))) {
                freed[n++] = v.node;
            }
        }
    }

    /// @dev Back to Open without a rejection (no verification could finish before the deadline).
    function _reopen(bytes32 jobId, Job storage j) internal {
        registry.unlock(j.submitter, _bond(j));
        j.status = Status.Open;
        j.submitter = address(0);
        j.resultRoot = bytes32(0);
        _resetRound(j);
        emit JobReopened(jobId);
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

    /// @dev The commit window grows with the sample's estimated re-run time (capped).
    function _startCommit(bytes32 jobId, Job storage j) internal {
        uint256 rerun = uint256(j.samples) * j.macroJobs * j.secondsPerMicroJob;
        uint256 spb = _params.secondsPerBlock;
        rerun = (rerun + spb - 1) / spb;
        if (rerun > MAX_RERUN_BLOCKS) rerun = MAX_RERUN_BLOCKS;
        uint256 cd = block.number + _params.commitWindow + rerun;
        j.commitDeadline = uint40(cd);
        emit VerifiersSelected(jobId, cd, cd + _revealWindow);
    }

    function _resetRound(Job storage j) internal {
        j.assigned = 0;
        j.commits = 0;
        j.reveals = 0;
        j.proven = false;
        j.claimedHash = bytes32(0);
        j.sampleEntropy = bytes32(0);
        j.chosenModel = bytes32(0);
        j.commitDeadline = 0;
        j.drawCounter = 0;
    }

    function _releaseUnrevealed(bytes32 jobId, Job storage j) internal returns (address[] memory freed, uint256 n) {
        if (_queue.contains(jobId)) _queue.remove(jobId);
        uint256 a = j.assigned;
        freed = new address[](a);
        for (uint256 i; i < a; ++i) {
            Verifier storage v = _verifiers[jobId][i];
            if (v.revealed) continue;
            if (registry.release(v.node, 0, 0, false, bytes32(0))) freed[n++] = v.node;
        }
    }

    function _enqueue(bytes32 jobId, Job storage j) internal {
        uint256 value = _taskValue(j);
        bytes32 model = j.chosenModel != bytes32(0) ? j.chosenModel : j.gpuModel;
        uint32 vram = j.minVramGb;
        if (!_queue.canPush(vram, model)) {
            _park(jobId, value);
            return;
        }
        if (_queue.size() >= _queueMaxSize()) {
            bytes32 low = _queue.lowest();
            uint256 lowValue = low == bytes32(0) ? 0 : VerificationQueue.valueOf(_queue.priorityOf(low));
            if (low == bytes32(0) || value <= lowValue) {
                _park(jobId, value);
                return;
            }
            _park(low, lowValue);
        }
        _queue.push(jobId, value, vram, model);
        emit VerificationQueued(jobId, uint256(j.k) - j.assigned, value);
    }

    /// @dev Takes a waiting task out of the queue (or does not queue it). It holds no verifier (draws are
    ///      all-or-nothing) and keeps its status and its submitter's bond: the processors' work is not thrown away
    ///      (an eviction used to refund the creator in full and pay no processor); its submitter draws again later,
    ///      and after the deadline the creator may refund it.
    function _park(bytes32 jobId, uint256 value) internal {
        if (_queue.contains(jobId)) _queue.remove(jobId);
        emit VerificationParked(jobId, value);
    }

    /// @dev A node became available: the best waiting task it may serve (own GPU group and "Any" groups with
    ///      minVram <= its VRAM grade, not a task it submitted or verifies) draws all its verifiers again.
    function _dispatch(address node) internal {
        if (_queue.size() == 0) return;
        (bytes32 model, uint32 vram) = registry.nodeGrade(node);
        bytes32[] memory tops = _queue.candidates(model, vram);
        bytes32 best;
        uint256 bestPrio;
        for (uint256 i; i < tops.length; ++i) {
            bytes32 id = tops[i];
            if (id == bytes32(0)) continue;
            uint256 pr = _queue.priorityOf(id);
            if (best != bytes32(0) && pr <= bestPrio) continue;
            Job storage c = _jobs[id];
            if (c.submitter == node || _isVerifier(id, c.assigned, node)) continue;
            if (c.identical && c.chosenModel != bytes32(0) && c.chosenModel != model) continue;
            best = id;
            bestPrio = pr;
        }
        if (best == bytes32(0)) return;
        Job storage j = _jobs[best];
        _queue.remove(best);
        if (_drawVerifiers(best, j)) return;
        bytes32 qm = j.chosenModel != bytes32(0) ? j.chosenModel : j.gpuModel;
        if (_queue.canPush(j.minVramGb, qm)) _queue.push(best, _taskValue(j), j.minVramGb, qm);
        else _park(best, _taskValue(j));
    }

    /// @dev Draws all of the job's missing verifiers or none: a partial draw is released at once, so a waiting job
    ///      holds no node (jobs that each held some of the few idle nodes while waiting for more deadlocked a small
    ///      network: every node busy, no job complete). Returns true when all k are assigned (commit phase started).
    function _drawVerifiers(bytes32 jobId, Job storage j) internal returns (bool) {
        uint256 assigned = j.assigned;
        uint256 need = uint256(j.k) - assigned;
        bool identical = j.identical;
        (address[] memory drawn, uint32 counter, bytes32 chosen) = registry.draw(
            NodeRegistry.DrawRequest({
                entropy: j.sampleEntropy,
                jobId: jobId,
                counter: j.drawCounter,
                need: uint8(need),
                minVram: j.minVramGb,
                gpuModel: identical && j.chosenModel != bytes32(0) ? j.chosenModel : j.gpuModel,
                modelId: j.modelId,
                identical: identical,
                exclude: j.submitter
            })
        );
        j.drawCounter = counter;
        if (drawn.length < need) {
            for (uint256 i; i < drawn.length; ++i) registry.release(drawn[i], 0, 0, false, bytes32(0));
            return false;
        }
        if (identical && chosen != bytes32(0) && j.chosenModel == bytes32(0)) j.chosenModel = chosen;
        for (uint256 i; i < need; ++i) {
            _verifiers[jobId][assigned] = _newVerifier(drawn[i]);
            emit VerifierAssigned(jobId, drawn[i], assigned);
            ++assigned;
        }
        j.assigned = uint8(assigned);
        _startCommit(jobId, j);
        return true;
    }

    function _send(address to, uint256 amount) internal {
        if (amount == 0) return;
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed();
    }
}
