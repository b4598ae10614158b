// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {NodeRegistry} from "./NodeRegistry.sol";
import {QoS} from "./libraries/QoS.sol";
import {Encoding} from "./libraries/Encoding.sol";
import {VerificationQueue} from "./libraries/VerificationQueue.sol";
import {IJobEscrowHooks} from "./interfaces/IJobEscrowHooks.sol";
import {JobEscrowBase, withTreasury} from "./escrow/JobEscrowBase.sol";
import {JobEscrowSettlement} from "./escrow/JobEscrowSettlement.sol";
import {JobEscrowRounds} from "./escrow/JobEscrowRounds.sol";

/// @title JobEscrow
/// @notice Holds a job's fee and runs settlement (docs/settlement.md): Open -> (commitResults, submitResults) ->
///         Submitted -> (verifiers drawn, sample proven, commit, reveal) -> Released (each processor claims its own
///         result leaves) or Rejected (the culprit slashed, job back to Open); Refunded after the deadline if never
///         released and no verification is under way (a verification parked out of a full queue holds no verifier).
/// @dev Every wei of a job ends with a processor (claims), a verifier (credits), the creator (refund) or the
///      treasury (unclaimed leaves after the claim window, shares forfeited by wrong or silent verifiers, slashes
///      beyond what pays the verifiers of a rejected round).
contract JobEscrow is JobEscrowRounds, IJobEscrowHooks {
    using VerificationQueue for VerificationQueue.Queue;

    /// @notice The settlement module (settle, claim, sweep, refund run there by delegatecall).
    address public immutable settlementModule;

    constructor(NodeRegistry registry_, Params memory p) JobEscrowBase(registry_, withTreasury(p, msg.sender)) {
        p = withTreasury(p, msg.sender);
        _params = p;
        settlementModule = address(new JobEscrowSettlement(registry_, p));
    }

    /// @notice Accepts slashed stake from the registry only.
    receive() external payable onlyRegistry {}

    // ---------------------------------------------------------------- job lifecycle

    /// @notice Creates and funds a job (msg.value = fee). jobId = keccak256(abi.encode(msg.sender, specCid, nonce)).
    ///         The fee pays every MicroJob run alike: N processor runs and k * samples * macroJobs verifier re-runs.
    function createJob(CreateJobParams calldata p) external payable returns (bytes32 jobId) {
        Params memory pr = _params;
        if (msg.value > type(uint96).max) revert FeeTooLarge();
        if (bytes(p.specCid).length == 0) revert EmptySpecCid();
        if (p.jobRoot == bytes32(0)) revert EmptyRoot();
        if (p.macroJobs == 0 || p.microJobsPerMacro == 0) revert InvalidSlicing();
        if (p.k < MIN_VERIFIERS || p.k > pr.maxVerifiers) revert InvalidVerifierCount(p.k, MIN_VERIFIERS, pr.maxVerifiers);
        // an even k splits in halves: a tie restarts the round with nobody slashed, a free re-roll for a caught fake
        if (p.k % 2 == 0) revert EvenVerifierCount(p.k);
        uint256 leaves = uint256(p.samples) * p.macroJobs;
        if (p.samples == 0 || p.samples > p.microJobsPerMacro || leaves > pr.maxSampleLeaves) {
            revert InvalidSamples(p.samples, p.microJobsPerMacro);
        }
        if (p.deadline <= block.timestamp || p.deadline > block.timestamp + pr.maxDeadline) revert InvalidDeadline();
        // identical hardware needs the creator's model: a model the draw chose by its first pick let a coalition that
        // registered k nodes under a model of its own take all k seats with one pick (attacks/IdenticalHardwareCapture)
        if (p.identicalHardware && p.gpuModel == bytes32(0)) revert IdenticalHardwareNeedsModel();
        // each verifier's share must be worth at least minFee: fee * samples / (per + k * samples) >= minFee
        uint256 units = uint256(p.microJobsPerMacro) + uint256(p.k) * p.samples;
        uint256 minimum = (uint256(pr.minFee) * units + p.samples - 1) / p.samples;
        if (msg.value == 0 || msg.value < minimum) revert UnderfundedJob(msg.value, minimum);
        jobId = keccak256(abi.encode(msg.sender, p.specCid, p.nonce));
        Job storage j = _jobs[jobId];
        if (j.status != Status.None) revert JobExists(jobId);
        j.creator = msg.sender;
        j.status = Status.Open;
        j.k = p.k;
        j.samples = p.samples;
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

    /// @notice First half of a submission: an active node commits to
    ///         keccak256(abi.encode(jobId, round, resultRoot, manifestCid, msg.sender)). A root copied from another
    ///         submitter's transaction cannot be submitted in the same block, and a commitment is bound to its sender.
    ///         A job rejected 255 times takes no more (`TooManyRounds`): it is refunded at its deadline.
    function commitResults(bytes32 jobId, bytes32 commitment_) external {
        Job storage j = _job(jobId);
        if (j.status != Status.Open) revert WrongStatus(jobId, j.status);
        if (block.timestamp > j.deadline) revert DeadlinePassed();
        if (!registry.isActive(msg.sender)) revert NotActiveNode(msg.sender);
        if (commitment_ == bytes32(0)) revert EmptyCommitment();
        // the round counter is a uint8: a 256th rejection would overflow in settle and freeze the round (its
        // verifiers busy for good, no refund); a job rejected 255 times takes no more results and is refunded
        if (j.rejections == type(uint8).max) revert TooManyRounds();
        resultCommits[jobId][msg.sender] = ResultCommit({commitment: commitment_, blockNumber: uint64(block.number)});
        emit ResultsCommitted(jobId, msg.sender, commitment_);
    }

    /// @notice A node that works on a job joins its current round (once; again is a no-op): the round's submissions
    ///         may then name it as a payee, locking the job's bond of its stake while each is verified. Nobody can lock
    ///         the stake of a node that did not join the round (a submitter naming nodes at will could hold
    ///         everybody's stake until its job's deadline; a join of an earlier round is no consent to a later one:
    ///         docs/settlement.md, Defences 28).
    function joinJob(bytes32 jobId) external {
        _join(jobId, _job(jobId));
    }

    /// @notice Second half: reveals the committed results (from a later block) -> Submitted. Locks the submitter's
    ///         bond (bondBps of the fee) in the registry until the round ends, and the same bond of each payee it
    ///         names (`payees`: the wallets its leaves pay, other than its own; a repeat counts once; each must have
    ///         joined the job, `PayeeNotJoined`): a named payee answers for its leaves with that bond and cannot
    ///         withdraw meanwhile, a payee left out does not (a wrong leaf of its is the submitter's fault). Each
    ///         needs minStake and free stake for the bond, and must not be exiting (the registry's `lock`).
    function submitResults(bytes32 jobId, bytes32 resultRoot, string calldata manifestCid, address[] calldata payees)
        external
    {
        Job storage j = _job(jobId);
        if (j.status != Status.Open) revert WrongStatus(jobId, j.status);
        if (block.timestamp > j.deadline) revert DeadlinePassed();
        if (resultRoot == bytes32(0)) revert EmptyRoot();
        if (payees.length > MAX_PAYEES) revert TooManyPayees(payees.length, MAX_PAYEES);
        ResultCommit memory rc = resultCommits[jobId][msg.sender];
        if (rc.commitment == bytes32(0)) revert NoResultCommit();
        if (rc.blockNumber >= block.number) revert TooEarly(rc.blockNumber + 1);
        if (rc.commitment != Encoding.resultCommitment(jobId, j.rejections, resultRoot, manifestCid, msg.sender)) {
            revert ResultCommitMismatch();
        }
        delete resultCommits[jobId][msg.sender];
        uint256 bond = _bond(j);
        registry.lock(msg.sender, bond);
        _lockPayees(jobId, payees, bond);
        j.status = Status.Submitted;
        j.submitter = msg.sender;
        j.submitBlock = uint40(block.number);
        j.resultRoot = resultRoot;
        emit ResultsSubmitted(jobId, msg.sender, resultRoot, manifestCid, block.number);
    }

    /// @notice Draws the job's verifiers (anyone may call, from block submitBlock + 2 on, when the entropy
    ///         blockhash(submitBlock + 1) exists). Missing verifiers wait in the verification queue; calling again
    ///         continues the draw. A missed draw window (entropy block older than 256 blocks) is no free re-roll:
    ///         the submitter is slashed drawPenaltyBps of its bond (to the treasury) and the window starts over.
    ///         The submitter draws for free during DRAW_GRACE_BLOCKS; a later first draw by anyone else is paid
    ///         DRAW_BOUNTY_BPS of the submitter's bond (credited), so the sample is fixed long before a re-roll.
    function selectVerifiers(bytes32 jobId) external {
        Job storage j = _job(jobId);
        if (j.status != Status.Submitted) revert WrongStatus(jobId, j.status);
        if (j.assigned == j.k) return;
        // past the deadline no draw starts: the creator may refund a job no verifier holds (a draw then took it)
        if (block.timestamp > j.deadline) revert DeadlinePassed();
        bytes32 entropy = j.drawEntropy;
        if (entropy == bytes32(0)) {
            uint256 sb = j.submitBlock;
            if (block.number <= sb + 1) revert TooEarly(sb + 2);
            entropy = blockhash(sb + 1);
            if (entropy == bytes32(0)) {
                uint256 pen = registry.slash(j.submitter, _bond(j) * _params.drawPenaltyBps / BPS);
                credits[treasury] += pen;
                j.submitBlock = uint40(block.number);
                emit EntropyReanchored(jobId, block.number, pen);
                return;
            }
            j.drawEntropy = entropy;
            emit DrawEntropySet(jobId, entropy);
            if (msg.sender != j.submitter && block.number > sb + 1 + DRAW_GRACE_BLOCKS) {
                uint256 bounty = registry.slash(j.submitter, _bond(j) * DRAW_BOUNTY_BPS / BPS);
                credits[msg.sender] += bounty;
                emit DrawBountyPaid(jobId, msg.sender, bounty);
            }
        } else if (_queue.contains(jobId)) {
            _queue.remove(jobId);
        }
        if (!_drawVerifiers(jobId, j)) _enqueue(jobId, j);
    }

    /// @notice A drawn verifier commits Encoding.commitment(verifierHash(expected leaf hashes, execution digest), processorBlame, salt,
    ///         msg.sender), where it computed each expected leaf from its own re-run and the payee it found signing
    ///         the MicroJob's result.
    function commitVerification(bytes32 jobId, bytes32 commitment_) external {
        Job storage j = _job(jobId);
        if (j.status != Status.Submitted) revert WrongStatus(jobId, j.status);
        uint256 i = _verifierIndex(jobId, j, msg.sender);
        Verifier storage v = _verifiers[jobId][i];
        if (v.committed) revert AlreadyCommitted();
        if (commitment_ == bytes32(0)) revert EmptyCommitment();
        if (!v.seeded) revert NoSeed();
        if (!j.entropySet) revert SampleNotOpen();
        if (j.assigned == j.k && block.number > j.commitDeadline) revert CommitWindowClosed();
        uint8 order = j.commits;
        v.committed = true;
        v.commitOrder = _late(j) ? order | QoS.LATE_COMMIT : order;
        j.commits = order + 1;
        _commitments[jobId][i] = commitment_;
        emit VerificationCommitted(jobId, msg.sender, order);
    }

    /// @dev Whether the caller commits after its own timeout: the commit window (from the seed deadline to the commit
    ///      deadline) times its timeout setting, in percent (NodeRegistryTimeout).
    function _late(Job storage j) internal view returns (bool) {
        uint256 sd = j.seedDeadline;
        uint256 cd = j.commitDeadline;
        if (cd <= sd) return false;
        return block.number > sd + (cd - sd) * registry.timeoutOf(msg.sender) / QoS.TIMEOUT_MAX_PCT;
    }

    /// @notice Commits the caller's next verifier seed (see JobEscrowSeeds.commitSeed).
    function commitSeed(bytes32, uint32) external {
        _delegate();
    }

    /// @notice A drawn verifier reveals its committed seed (see JobEscrowSeeds.revealSeed).
    function revealSeed(bytes32, bytes32, bytes32) external {
        _delegate();
    }

    /// @notice Fixes the sample once the seed window is over (see JobEscrowSeeds.closeSeeds).
    function closeSeeds(bytes32) external {
        _delegate();
    }

    /// @notice Proves the submitted leaves of the sample (see JobEscrowSettlement.proveSample).
    function proveSample(bytes32, ResultLeaf[] calldata, bytes32[][] calldata) external {
        _delegate();
    }

    /// @notice Reveals a verifier's vote (see JobEscrowSettlement.revealVerification).
    function revealVerification(bytes32, Reveal calldata) external {
        _delegate();
    }

    /// @notice Settles a verification round (see JobEscrowSettlement.settle).
    function settle(bytes32) external {
        _delegate();
    }

    /// @notice Pays proven result leaves of a Released job to their payees (see JobEscrowSettlement.claim).
    function claim(bytes32, ResultLeaf[] calldata, bytes32[][] calldata) external {
        _delegate();
    }

    /// @notice After the claim window, sends the unclaimed processor pool to the treasury (JobEscrowSettlement).
    function sweep(bytes32) external {
        _delegate();
    }

    /// @notice Refunds the creator after the deadline, never during a verification (JobEscrowSettlement.refund).
    function refund(bytes32) external {
        _delegate();
    }

    /// @notice Withdraws the caller's credits (verifier shares, refunds of aborted tasks, the treasury's takings).
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

    /// @dev revealDeadline is derived, not stored.
    function jobs(bytes32 jobId) external view returns (Job memory) {
        Job memory j = _jobs[jobId];
        if (j.commitDeadline != 0) j.revealDeadline = uint40(j.commitDeadline + _revealWindow);
        return j;
    }

    /// @notice The deployment parameters (treasury resolved).
    function params() external view returns (Params memory) {
        return _params;
    }

    function statusOf(bytes32 jobId) external view returns (Status) {
        return _jobs[jobId].status;
    }

    function verifiersOf(bytes32 jobId) external view returns (Verifier[] memory out) {
        uint256 n = _jobs[jobId].assigned;
        out = new Verifier[](n);
        for (uint256 i; i < n; ++i) out[i] = _verifiers[jobId][i];
    }

    function commitmentOf(bytes32 jobId, uint256 i) external view returns (bytes32) {
        return _commitments[jobId][i];
    }

    /// @notice Start of MacroJob m's validation window in the current round.
    function validationIndex(bytes32 jobId, uint256 m) external view returns (uint256) {
        Job storage j = _jobs[jobId];
        return Encoding.validationIndex(j.seed, m, j.sampleEntropy, j.microJobsPerMacro);
    }

    /// @notice The job's task value (wei per second), by which the verification queue orders jobs.
    function taskValue(bytes32 jobId) external view returns (uint256) {
        return _taskValue(_jobs[jobId]);
    }

    /// @notice The network's pricing parameters (set at deployment): estimated ms = overheadMs + microJobs * msPerMicroJob.
    function pricing() external view returns (uint32 overheadMs, uint32 msPerMicroJob) {
        return (_params.overheadMs, _params.msPerMicroJob);
    }

    /// @notice The task value (wei per second) a job of `microJobs` MicroJobs paying `fee` wei would have.
    function quoteTaskValue(uint256 fee, uint256 microJobs) external view returns (uint256) {
        if (microJobs == 0) revert InvalidParams();
        return _valueOf(fee, microJobs);
    }

    /// @notice fee * microJobsPerMacro / (microJobsPerMacro + k * samples): the processors' part.
    function processorPool(bytes32 jobId) external view returns (uint256) {
        return _processorPool(_jobs[jobId]);
    }

    /// @notice One verifier's share of the fee (also the penalty of a silent or outvoted verifier).
    function verifierShare(bytes32 jobId) external view returns (uint256) {
        Job storage j = _jobs[jobId];
        return j.k == 0 ? 0 : _verifierPool(j) / j.k;
    }

    /// @notice The submitter's bond and the culprit's slash: bondBps of the fee.
    function bondOf(bytes32 jobId) external view returns (uint256) {
        return _bond(_jobs[jobId]);
    }

    function isClaimed(bytes32 jobId, uint256 position) external view returns (bool) {
        return _claimed[jobId][position >> 8] & (uint256(1) << (position & 255)) != 0;
    }

    function queueSize() external view returns (uint256) {
        return _queue.size();
    }

    function queueMaxSize() external view returns (uint256) {
        return _queueMaxSize();
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
    /// @dev Runs the current call in the settlement module on this contract's storage and returns its result.
    function _delegate() internal {
        address m = settlementModule;
        assembly ("memory-safe") {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), m, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}
