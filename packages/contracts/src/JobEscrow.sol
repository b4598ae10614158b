// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {NodeRegistry} from "./NodeRegistry.sol";
import {QoS} from "./libraries/QoS.sol";
import {Encoding} from "./libraries/Encoding.sol";
import {VerificationQueue} from "./libraries/VerificationQueue.sol";
import {IJobEscrowHooks} from "./interfaces/IJobEscrowHooks.sol";

/// @title JobEscrow
/// @notice Holds a job's fee and runs settlement (DESIGN section 8): Open -> Submitted -> (verifiers drawn, commit,
///         reveal, sample proven) -> Released (payees claim against payoutRoot) or Rejected (submitter slashed, job
///         back to Open); Refunded after the deadline if never released; Aborted when evicted from a full
///         verification queue (creator refunded).
contract JobEscrow is ReentrancyGuard, IJobEscrowHooks {
    using VerificationQueue for VerificationQueue.Queue;

    uint256 public constant BPS = 10_000;

    enum Status {
        None,
        Open,
        Submitted,
        Released,
        Refunded,
        Aborted
    }

    struct Params {
        uint16 processorBps; // processors' share of the fee (rest: verifiers)
        uint8 maxVerifiers; // upper bound on k
        uint32 commitWindow; // blocks, from the block the k-th verifier is assigned
        uint32 revealWindow; // blocks, after the commit window
        uint32 overheadSeconds; // fixed per-job overhead in the task value estimate
        uint32 alphaBps; // verification queue max size = max(queueMin, activeNodes * alphaBps / 10000)
        uint32 queueMin;
        uint96 minFee; // wei
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
        uint40 deadline; // unix seconds
        uint32 secondsPerMicroJob;
    }

    struct Job {
        // slot 0
        address creator;
        Status status;
        uint8 k;
        uint8 assigned; // verifiers assigned in this round
        uint8 commits;
        uint8 reveals;
        bool identical;
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
        bool entropySet;
        uint8 rejections;
        // slot 6
        address submitter;
        uint40 submitBlock;
        uint40 commitDeadline; // block
        // slot 7
        uint40 revealDeadline; // block
        uint32 drawCounter;
        uint96 processorPaid;
        // slot 8..12
        bytes32 resultRoot;
        bytes32 payoutRoot;
        bytes32 sampleEntropy;
        bytes32 claimedHash;
        bytes32 chosenModel;
    }

    struct Verifier {
        address node;
        uint8 commitOrder;
        uint8 revealOrder;
        bool committed;
        bool revealed;
    }

    struct ResultLeaf {
        bytes32 microId;
        uint256 macroIndex;
        uint256 index;
        bytes32 outputHash;
    }

    NodeRegistry public immutable registry;
    Params public params;
    uint32 internal immutable _commitWindow; // = params.commitWindow, without an SLOAD
    uint32 internal immutable _revealWindow; // = params.revealWindow; revealDeadline = commitDeadline + this

    mapping(bytes32 => Job) internal _jobs;
    mapping(bytes32 => mapping(uint256 => Verifier)) internal _verifiers;
    /// @dev commitment until revealed, then the revealed verifier hash
    mapping(bytes32 => mapping(uint256 => bytes32)) internal _hashes;
    mapping(bytes32 => mapping(bytes32 => bool)) public claimed; // jobId => payout leaf => claimed
    mapping(address => uint256) public credits; // pull payments (verifier fees, slash shares, aborted refunds)
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
    event ResultsSubmitted(
        bytes32 indexed jobId,
        address indexed submitter,
        bytes32 resultRoot,
        bytes32 payoutRoot,
        string manifestCid,
        uint256 blockNumber
    );
    event EntropyReanchored(bytes32 indexed jobId, uint256 submitBlock);
    event SampleEntropySet(bytes32 indexed jobId, bytes32 sampleEntropy);
    event VerifierAssigned(bytes32 indexed jobId, address indexed verifier, uint256 index);
    event VerifiersSelected(bytes32 indexed jobId, uint256 commitDeadline, uint256 revealDeadline);
    event VerificationQueued(bytes32 indexed jobId, uint256 missing, uint256 taskValue);
    event TaskAborted(bytes32 indexed jobId, address indexed creator, uint256 refund);
    event VerificationCommitted(bytes32 indexed jobId, address indexed verifier, uint256 order);
    event VerificationRevealed(bytes32 indexed jobId, address indexed verifier, bytes32 verifierHash, uint256 order);
    event VerifierTimedOut(bytes32 indexed jobId, address indexed verifier, bool committed);
    event SampleProven(bytes32 indexed jobId, bytes32 claimedHash);
    event VerificationRestarted(bytes32 indexed jobId, uint256 submitBlock);
    event JobReleased(bytes32 indexed jobId, bytes32 claimedHash, uint256 matches, uint256 reveals);
    event JobRejected(bytes32 indexed jobId, address indexed submitter, uint256 slashed);
    event JobReopened(bytes32 indexed jobId);
    event VerifierPaid(bytes32 indexed jobId, address indexed verifier, uint256 amount);
    event PaymentClaimed(bytes32 indexed jobId, address indexed payee, uint256 amount);
    event JobRefunded(bytes32 indexed jobId, address indexed creator, uint256 amount);
    event CreditWithdrawn(address indexed account, uint256 amount);

    // ---------------------------------------------------------------- errors
    error InvalidParams();
    error UnderfundedJob(uint256 sent, uint256 minFee);
    error FeeTooLarge();
    error EmptySpecCid();
    error EmptyRoot();
    error InvalidSlicing();
    error InvalidVerifierCount(uint256 k, uint256 max);
    error InvalidDeadline();
    error JobExists(bytes32 jobId);
    error UnknownJob(bytes32 jobId);
    error WrongStatus(bytes32 jobId, Status status);
    error DeadlinePassed();
    error DeadlineNotReached(uint256 deadline);
    error NotActiveNode(address node);
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
    error WrongSampleLeaf(uint256 macroIndex);
    error InvalidProof();
    error SettleTooEarly(uint256 revealDeadline);
    error AlreadyClaimed();
    error PoolExceeded(uint256 available);
    error NothingToWithdraw();
    error TransferFailed();
    error OnlyRegistry();

    modifier onlyRegistry() {
        if (msg.sender != address(registry)) revert OnlyRegistry();
        _;
    }

    constructor(NodeRegistry registry_, Params memory p) {
        if (address(registry_) == address(0) || p.processorBps > BPS || p.maxVerifiers == 0 || p.commitWindow == 0
                || p.revealWindow == 0) revert InvalidParams();
        registry = registry_;
        params = p;
        _commitWindow = p.commitWindow;
        _revealWindow = p.revealWindow;
    }

    /// @notice Accepts slashed stake from the registry only.
    receive() external payable onlyRegistry {}

    // ---------------------------------------------------------------- job lifecycle

    /// @notice Creates and funds a job (msg.value = fee). jobId = keccak256(abi.encode(msg.sender, specCid, nonce)).
    function createJob(CreateJobParams calldata p) external payable returns (bytes32 jobId) {
        Params memory pr = params;
        if (msg.value < pr.minFee || msg.value == 0) revert UnderfundedJob(msg.value, pr.minFee);
        if (msg.value > type(uint96).max) revert FeeTooLarge();
        if (bytes(p.specCid).length == 0) revert EmptySpecCid();
        if (p.jobRoot == bytes32(0)) revert EmptyRoot();
        if (p.macroJobs == 0 || p.microJobsPerMacro == 0) revert InvalidSlicing();
        if (p.k == 0 || p.k > pr.maxVerifiers) revert InvalidVerifierCount(p.k, pr.maxVerifiers);
        if (p.deadline <= block.timestamp) revert InvalidDeadline();
        jobId = keccak256(abi.encode(msg.sender, p.specCid, p.nonce));
        Job storage j = _jobs[jobId];
        if (j.status != Status.None) revert JobExists(jobId);
        j.creator = msg.sender;
        j.status = Status.Open;
        j.k = p.k;
        j.identical = p.identicalHardware;
        j.deadline = p.deadline;
        j.jobRoot = p.jobRoot;
        j.seed = p.seed;
        if (p.gpuModel != bytes32(0)) j.gpuModel = p.gpuModel;
        if (p.modelId != bytes32(0)) j.modelId = p.modelId;
        j.fee = uint96(msg.value);
        j.macroJobs = p.macroJobs;
        j.microJobsPerMacro = p.microJobsPerMacro;
        j.minVramGb = p.minVramGb;
        j.secondsPerMicroJob = p.secondsPerMicroJob;
        emit JobCreated(jobId, msg.sender, p.specCid, msg.value, p.jobRoot, p.deadline, _taskValue(j));
    }

    /// @notice A registered node submits the job's results -> Submitted (records the block).
    function submitResults(bytes32 jobId, bytes32 resultRoot, bytes32 payoutRoot, string calldata manifestCid)
        external
    {
        Job storage j = _job(jobId);
        if (j.status != Status.Open) revert WrongStatus(jobId, j.status);
        if (block.timestamp > j.deadline) revert DeadlinePassed();
        if (!registry.isActive(msg.sender)) revert NotActiveNode(msg.sender);
        if (resultRoot == bytes32(0) || payoutRoot == bytes32(0)) revert EmptyRoot();
        j.status = Status.Submitted;
        j.submitter = msg.sender;
        j.submitBlock = uint40(block.number);
        j.resultRoot = resultRoot;
        j.payoutRoot = payoutRoot;
        registry.noteSubmission(msg.sender, j.modelId);
        emit ResultsSubmitted(jobId, msg.sender, resultRoot, payoutRoot, manifestCid, block.number);
    }

    /// @notice Draws the job's verifiers (anyone may call, from block submitBlock + 2 on, when the entropy
    ///         blockhash(submitBlock + 1) exists). Missing verifiers wait in the verification queue; calling again
    ///         continues the draw. Idempotent once all k verifiers are assigned.
    function selectVerifiers(bytes32 jobId) external {
        Job storage j = _job(jobId);
        if (j.status != Status.Submitted) revert WrongStatus(jobId, j.status);
        uint256 k = j.k;
        uint256 assigned = j.assigned;
        if (assigned == k) return;
        bytes32 entropy = j.sampleEntropy; // 0 until this round's first draw (entropySet in the view)
        uint32 counter0; // position in the entropy stream: 0 on a round's first draw (fresh entropy)
        if (entropy == bytes32(0)) {
            uint256 sb = j.submitBlock;
            if (block.number <= sb + 1) revert TooEarly(sb + 2);
            entropy = blockhash(sb + 1);
            if (entropy == bytes32(0)) {
                // older than 256 blocks: re-anchor the entropy on this block
                j.submitBlock = uint40(block.number);
                emit EntropyReanchored(jobId, block.number);
                return;
            }
            j.sampleEntropy = entropy;
            emit SampleEntropySet(jobId, entropy);
            // a job enters the queue only after a draw of the current round, so it is not queued now
        } else {
            counter0 = j.drawCounter;
            if (_queue.contains(jobId)) _queue.remove(jobId);
        }
        bool identical = j.identical;
        bytes32 model = identical && j.chosenModel != bytes32(0) ? j.chosenModel : j.gpuModel;
        (address[] memory drawn, uint32 counter, bytes32 chosen) = registry.draw(
            NodeRegistry.DrawRequest({
                entropy: entropy,
                jobId: jobId,
                counter: counter0,
                need: uint8(k - assigned),
                minVram: j.minVramGb,
                gpuModel: model,
                modelId: j.modelId,
                identical: identical,
                exclude: j.submitter
            })
        );
        if (identical && chosen != bytes32(0) && drawn.length != 0 && j.chosenModel == bytes32(0)) {
            j.chosenModel = chosen;
        }
        for (uint256 i; i < drawn.length; ++i) {
            _verifiers[jobId][assigned] = Verifier({
                node: drawn[i], commitOrder: 0, revealOrder: 0, committed: false, revealed: false
            });
            emit VerifierAssigned(jobId, drawn[i], assigned);
            ++assigned;
        }
        j.assigned = uint8(assigned);
        if (assigned == k) {
            _startCommit(jobId, j);
        } else {
            // the stream position is only needed to continue an incomplete draw
            if (counter != counter0) j.drawCounter = counter;
            _enqueue(jobId, j);
        }
    }

    /// @notice A drawn verifier commits keccak256(abi.encode(verifierHash, salt, msg.sender)).
    function commitVerification(bytes32 jobId, bytes32 commitment) external {
        Job storage j = _job(jobId);
        if (j.status != Status.Submitted) revert WrongStatus(jobId, j.status);
        uint256 i = _verifierIndex(jobId, j, msg.sender);
        Verifier storage v = _verifiers[jobId][i];
        if (v.committed) revert AlreadyCommitted();
        if (commitment == bytes32(0)) revert EmptyCommitment();
        if (j.assigned == j.k && block.number > j.commitDeadline) revert CommitWindowClosed();
        uint8 order = j.commits;
        v.committed = true;
        v.commitOrder = order;
        j.commits = order + 1;
        _hashes[jobId][i] = commitment;
        emit VerificationCommitted(jobId, msg.sender, order);
    }

    /// @notice Reveals the committed verifier hash; ends the verifier's task (QoS round order recorded) and frees it.
    function revealVerification(bytes32 jobId, bytes32 verifierHash, bytes32 salt) external {
        Job storage j = _job(jobId);
        if (j.status != Status.Submitted) revert WrongStatus(jobId, j.status);
        uint256 i = _verifierIndex(jobId, j, msg.sender);
        Verifier storage v = _verifiers[jobId][i];
        if (!v.committed) revert NotCommitted();
        if (v.revealed) revert AlreadyRevealed();
        if (!_commitPhaseOver(j)) revert RevealNotOpen();
        if (block.number > _revealDeadline(j)) revert RevealWindowClosed();
        if (keccak256(abi.encode(verifierHash, salt, msg.sender)) != _hashes[jobId][i]) revert RevealMismatch();
        uint8 order = j.reveals;
        v.revealed = true;
        v.revealOrder = order;
        j.reveals = order + 1;
        _hashes[jobId][i] = verifierHash;
        emit VerificationRevealed(jobId, msg.sender, verifierHash, order);
        uint256 score = QoS.roundScore(v.commitOrder) + QoS.roundScore(order);
        if (registry.release(msg.sender, score, 0, true, j.modelId)) _dispatch(msg.sender);
    }

    /// @notice Proves the submitter's claimed output hashes of the sampled MicroJobs (one per MacroJob, in MacroJob
    ///         order) against resultRoot; sets claimedHash = keccak256(abi.encode(outputHashes)). Open once the commit
    ///         phase is over (all committed or the commit window passed), so the claim cannot be copied by verifiers.
    function proveSample(bytes32 jobId, ResultLeaf[] calldata leaves, bytes32[][] calldata proofs) external {
        Job storage j = _job(jobId);
        if (j.status != Status.Submitted) revert WrongStatus(jobId, j.status);
        if (j.proven) revert AlreadyProven();
        if (j.assigned != j.k || !_commitPhaseOver(j)) revert SampleNotOpen();
        uint256 n = j.macroJobs;
        if (leaves.length != n || proofs.length != n) revert WrongSampleLength(leaves.length, n);
        bytes32[] memory hashes = new bytes32[](n);
        for (uint256 m; m < n; ++m) {
            hashes[m] = _checkSampleLeaf(jobId, j, m, leaves[m], proofs[m]);
        }
        bytes32 claimedHash = keccak256(abi.encode(hashes));
        j.claimedHash = claimedHash;
        j.proven = true;
        emit SampleProven(jobId, claimedHash);
    }

    /// @notice Settles a verification round: majority of revealed hashes == claimed hash -> Released; otherwise
    ///         Rejected (submitter slashed, job back to Open). Possible when all verifiers revealed and the sample is
    ///         proven, or after the reveal window (silent verifiers time out with round score 0). With no reveal at
    ///         all the round restarts. Idempotent on a Released/Refunded/Aborted job.
    function settle(bytes32 jobId) external nonReentrant {
        Job storage j = _job(jobId);
        Status st = j.status;
        if (st == Status.Released || st == Status.Refunded || st == Status.Aborted) return;
        if (st != Status.Submitted) revert WrongStatus(jobId, st);
        uint256 k = j.k;
        if (j.assigned != k) revert VerifiersIncomplete();
        uint256 reveals = j.reveals;
        uint256 rd = _revealDeadline(j);
        if (!(reveals == k && j.proven) && block.number <= rd) revert SettleTooEarly(rd);

        address[] memory freed = new address[](k);
        uint256 nFreed;
        if (reveals != k) {
            for (uint256 i; i < k; ++i) {
                Verifier storage v = _verifiers[jobId][i];
                if (v.revealed) continue;
                bool c = v.committed;
                emit VerifierTimedOut(jobId, v.node, c);
                if (registry.release(v.node, c ? QoS.roundScore(v.commitOrder) : 0, c ? 1 : 2, true, bytes32(0))) {
                    freed[nFreed++] = v.node;
                }
            }
        }
        if (reveals == 0) {
            _resetRound(j);
            j.submitBlock = uint40(block.number);
            emit VerificationRestarted(jobId, block.number);
        } else {
            bytes32 claimedHash = j.claimedHash;
            bool proven = j.proven;
            uint256 matches;
            if (proven) {
                for (uint256 i; i < k; ++i) {
                    if (_verifiers[jobId][i].revealed && _hashes[jobId][i] == claimedHash) ++matches;
                }
            }
            if (proven && matches * 2 > reveals) {
                j.status = Status.Released;
                uint256 pool = uint256(j.fee) - uint256(j.fee) * params.processorBps / BPS;
                _payVerifiers(jobId, j, pool, true, claimedHash);
                emit JobReleased(jobId, claimedHash, matches, reveals);
            } else {
                address submitter = j.submitter;
                uint256 slashed = registry.slash(submitter);
                // honest (dissenting) verifiers share the slashed stake by reveal order
                _payVerifiers(jobId, j, slashed, false, proven ? claimedHash : bytes32(0));
                j.status = Status.Open;
                j.rejections += 1;
                j.submitter = address(0);
                j.resultRoot = bytes32(0);
                j.payoutRoot = bytes32(0);
                _resetRound(j);
                emit JobRejected(jobId, submitter, slashed);
                emit JobReopened(jobId);
            }
        }
        for (uint256 i; i < nFreed; ++i) _dispatch(freed[i]);
    }

    /// @notice A payee claims its processor payment with a Merkle proof against payoutRoot (leaf (payee, amount)),
    ///         capped by the processor pool. Anyone may call; the funds go to the payee.
    function claim(bytes32 jobId, address payee, uint256 amount, bytes32[] calldata proof) external nonReentrant {
        Job storage j = _job(jobId);
        if (j.status != Status.Released) revert WrongStatus(jobId, j.status);
        bytes32 leaf = Encoding.payoutLeaf(payee, amount);
        if (claimed[jobId][leaf]) revert AlreadyClaimed();
        if (!MerkleProof.verifyCalldata(proof, j.payoutRoot, leaf)) revert InvalidProof();
        uint256 pool = uint256(j.fee) * params.processorBps / BPS;
        uint256 paid = j.processorPaid;
        if (paid + amount > pool) revert PoolExceeded(pool - paid);
        claimed[jobId][leaf] = true;
        j.processorPaid = uint96(paid + amount);
        emit PaymentClaimed(jobId, payee, amount);
        _send(payee, amount);
    }

    /// @notice Refunds the fee to the creator after the deadline if the job was never released. Idempotent.
    function refund(bytes32 jobId) external nonReentrant {
        Job storage j = _job(jobId);
        Status st = j.status;
        if (st == Status.Refunded) return;
        if (st != Status.Open && st != Status.Submitted) revert WrongStatus(jobId, st);
        if (block.timestamp <= j.deadline) revert DeadlineNotReached(j.deadline);
        address[] memory freed;
        uint256 nFreed;
        if (st == Status.Submitted) (freed, nFreed) = _releaseUnrevealed(jobId, j);
        j.status = Status.Refunded;
        uint256 amount = j.fee;
        emit JobRefunded(jobId, j.creator, amount);
        _send(j.creator, amount);
        for (uint256 i; i < nFreed; ++i) _dispatch(freed[i]);
    }

    /// @notice Withdraws the caller's credits (verifier fees, slash shares, refunds of aborted tasks).
    function withdrawCredit() external nonReentrant {
        uint256 amount = credits[msg.sender];
        if (amount == 0) revert NothingToWithdraw();
        credits[msg.sender] = 0;
        emit CreditWithdrawn(msg.sender, amount);
        _send(msg.sender, amount);
    }

    /// @notice Registry hook: a node became available; dispatch the best waiting verification task to it.
    function onNodeAvailable(address node) external onlyRegistry {
        _dispatch(node);
    }

    // ---------------------------------------------------------------- views

    /// @dev entropySet and revealDeadline are derived (sampleEntropy != 0; commitDeadline + revealWindow), not
    ///      stored: that saves a write and a fresh slot per verification round.
    function jobs(bytes32 jobId) external view returns (Job memory) {
        Job memory j = _jobs[jobId];
        j.entropySet = j.sampleEntropy != bytes32(0);
        if (j.commitDeadline != 0) j.revealDeadline = uint40(j.commitDeadline + _revealWindow);
        return j;
    }

    function statusOf(bytes32 jobId) external view returns (Status) {
        return _jobs[jobId].status;
    }

    function verifiersOf(bytes32 jobId) external view returns (Verifier[] memory out) {
        uint256 n = _jobs[jobId].assigned;
        out = new Verifier[](n);
        for (uint256 i; i < n; ++i) out[i] = _verifiers[jobId][i];
    }

    /// @notice The commitment (before reveal) or the revealed verifier hash of verifier `i`.
    function verifierHashOf(bytes32 jobId, uint256 i) external view returns (bytes32) {
        return _hashes[jobId][i];
    }

    function validationIndex(bytes32 jobId, uint256 m) external view returns (uint256) {
        Job storage j = _jobs[jobId];
        return Encoding.validationIndex(j.seed, m, j.sampleEntropy, j.microJobsPerMacro);
    }

    function taskValue(bytes32 jobId) external view returns (uint256) {
        return _taskValue(_jobs[jobId]);
    }

    function processorPool(bytes32 jobId) external view returns (uint256) {
        return uint256(_jobs[jobId].fee) * params.processorBps / BPS;
    }

    function queueSize() external view returns (uint256) {
        return _queue.size();
    }

    function queueMaxSize() public view returns (uint256) {
        uint256 s = registry.activeNodes() * params.alphaBps / BPS;
        return s < params.queueMin ? params.queueMin : s;
    }

    function isQueued(bytes32 jobId) external view returns (bool) {
        return _queue.contains(jobId);
    }

    function lowestQueued() external view returns (bytes32) {
        return _queue.lowest();
    }

    function computeJobId(address creator, string calldata specCid, uint256 nonce) external pure returns (bytes32) {
        return Encoding.jobId(creator, specCid, nonce);
    }

    // ---------------------------------------------------------------- internals

    function _job(bytes32 jobId) internal view returns (Job storage j) {
        j = _jobs[jobId];
        if (j.status == Status.None) revert UnknownJob(jobId);
    }

    /// @dev value = fee / (overheadSeconds + microJobCount * secondsPerMicroJob), wei per second.
    function _taskValue(Job storage j) internal view returns (uint256) {
        uint256 est = uint256(params.overheadSeconds)
            + uint256(j.macroJobs) * uint256(j.microJobsPerMacro) * uint256(j.secondsPerMicroJob);
        return est == 0 ? j.fee : uint256(j.fee) / est;
    }

    function _checkSampleLeaf(
        bytes32 jobId,
        Job storage j,
        uint256 m,
        ResultLeaf calldata l,
        bytes32[] calldata proof
    ) internal view returns (bytes32) {
        uint256 seed = j.seed;
        uint256 idx = Encoding.validationIndex(seed, m, j.sampleEntropy, j.microJobsPerMacro);
        if (l.macroIndex != m || l.index != idx || l.microId != Encoding.microId(seed, jobId, m, idx)) {
            revert WrongSampleLeaf(m);
        }
        if (!MerkleProof.verifyCalldata(proof, j.resultRoot, Encoding.resultLeaf(l.microId, m, idx, l.outputHash))) {
            revert InvalidProof();
        }
        return l.outputHash;
    }

    /// @dev Last block of the reveal window (0 before the commit phase starts).
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

    function _startCommit(bytes32 jobId, Job storage j) internal {
        uint256 cd = block.number + _commitWindow;
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
    }

    /// @dev Pays `pool` to revealed verifiers (matching `h` when `matching`, else differing from `h`) weighted by
    ///      reveal-order round score; the rest goes to the creator's credit.
    function _payVerifiers(bytes32 jobId, Job storage j, uint256 pool, bool matching, bytes32 h) internal {
        if (pool == 0) return;
        uint256 k = j.k;
        uint256 sumW;
        uint256[] memory w = new uint256[](k);
        for (uint256 i; i < k; ++i) {
            Verifier storage v = _verifiers[jobId][i];
            if (!v.revealed) continue;
            bool eq = _hashes[jobId][i] == h;
            if (eq == matching) {
                w[i] = QoS.roundScore(v.revealOrder);
                sumW += w[i];
            }
        }
        uint256 paid;
        if (sumW != 0) {
            for (uint256 i; i < k; ++i) {
                if (w[i] == 0) continue;
                uint256 amt = pool * w[i] / sumW;
                if (amt == 0) continue;
                address node = _verifiers[jobId][i].node;
                credits[node] += amt;
                paid += amt;
                emit VerifierPaid(jobId, node, amt);
            }
        }
        if (pool > paid) credits[j.creator] += pool - paid;
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
            _abort(jobId, j);
            return;
        }
        if (_queue.size() >= queueMaxSize()) {
            bytes32 low = _queue.lowest();
            if (low == bytes32(0) || value <= VerificationQueue.valueOf(_queue.priorityOf(low))) {
                _abort(jobId, j);
                return;
            }
            _abort(low, _jobs[low]);
        }
        _queue.push(jobId, value, vram, model);
        emit VerificationQueued(jobId, uint256(j.k) - j.assigned, value);
    }

    /// @dev Aborts a queued (or about to be queued) task: frees its verifiers, credits the creator's refund.
    function _abort(bytes32 jobId, Job storage j) internal {
        (address[] memory freed, uint256 n) = _releaseUnrevealed(jobId, j);
        j.status = Status.Aborted;
        credits[j.creator] += j.fee;
        emit TaskAborted(jobId, j.creator, j.fee);
        for (uint256 i; i < n; ++i) _dispatch(freed[i]);
    }

    /// @dev Gives an available node the best waiting task it may serve (own GPU group and "Any" groups with
    ///      minVram <= its VRAM), skipping tasks it submitted or already verifies.
    function _dispatch(address node) internal {
        if (_queue.size() == 0) return;
        (bytes32 model, uint32 vram) = registry.nodeHardware(node);
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
        if (!registry.assign(node)) return;
        Job storage j = _jobs[best];
        uint256 idx = j.assigned;
        _verifiers[best][idx] =
            Verifier({node: node, commitOrder: 0, revealOrder: 0, committed: false, revealed: false});
        j.assigned = uint8(idx + 1);
        emit VerifierAssigned(best, node, idx);
        _queue.remove(best);
        if (idx + 1 == j.k) {
            _startCommit(best, j);
        } else {
            if (j.identical && j.chosenModel == bytes32(0)) j.chosenModel = model;
            bytes32 qm = j.chosenModel != bytes32(0) ? j.chosenModel : j.gpuModel;
            if (_queue.canPush(j.minVramGb, qm)) _queue.push(best, _taskValue(j), j.minVramGb, qm);
            else _abort(best, j);
        }
    }

    function _send(address to, uint256 amount) internal {
        if (amount == 0) return;
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed();
    }
}
