// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {NodeRegistry} from "../NodeRegistry.sol";
import {JobEscrowBase} from "./JobEscrowBase.sol";
import {JobEscrowSeeds} from "./JobEscrowSeeds.sol";
import {Encoding} from "../libraries/Encoding.sol";
import {QoS} from "../libraries/QoS.sol";
import {VerificationQueue} from "../libraries/VerificationQueue.sol";

/// @title JobEscrowSettlement
/// @notice The settlement half of JobEscrow (settle, claim, sweep, refund), split off to keep each contract under
///         the EIP-170 code size limit. JobEscrow deploys it and delegatecalls these functions with the same calldata,
///         so they run on JobEscrow's storage and balance; called directly they revert.
contract JobEscrowSettlement is JobEscrowSeeds {
    using VerificationQueue for VerificationQueue.Queue;

    constructor(NodeRegistry registry_, Params memory p) JobEscrowBase(registry_, p) {}

    /// @notice Settles a verification round once all k verifiers revealed, or after the reveal window:
    ///         - more than k/2 verifiers matched the proven sample -> Released;
    ///         - more than k/2 found the same first wrong leaf, or nobody proved the sample -> Rejected: the culprit
    ///           (the leaf's payee when the majority blames the processor that signed it, else the submitter) is
    ///           slashed bondBps of the fee, the job is Open again;
    ///         - otherwise (also when that majority splits evenly on the blame) the round restarts (Open again after
    ///           the deadline).
    ///         Verifiers that voted with the outcome get one verifier share each (from the fee on release, from the
    ///         slash on rejection, from the silent verifiers' penalties otherwise); silent or outvoted verifiers are
    ///         slashed one share, except in a round in which none of them committed (restarted, or rejected for an
    ///         unproven sample: the submitter alone pays). Idempotent on a Released/Refunded job.
    function settle(bytes32 jobId) external onlyDelegated nonReentrant {
        Job storage j = _job(jobId);
        Status st = j.status;
        if (st == Status.Released || st == Status.Refunded) return;
        if (st != Status.Submitted) revert WrongStatus(jobId, st);
        uint256 k = j.k;
        if (j.assigned != k) {
            // verifiers still missing after the deadline: no verification can finish in time
            if (block.timestamp <= j.deadline) revert VerifiersIncomplete();
            (address[] memory fr, uint256 nf) = _releaseUnrevealed(jobId, j);
            _reopen(jobId, j);
            for (uint256 i; i < nf; ++i) _dispatch(fr[i]);
            return;
        }
        uint256 rd = _revealDeadline(j);
        if (j.reveals != k && block.number <= rd) revert SettleTooEarly(rd);
        if (!j.entropySet) _penaliseSeedless(jobId, j); // nobody closed the seeds: no sample, no vote, no proof
        Tally memory t = _tally(jobId, k);
        (address[] memory freed, uint256 nFreed) = _timeOut(jobId, j, k);
        if (t.matches * 2 > k) {
            _payRound(jobId, j, k, 0, t.tag, false, _verifierPool(j));
            j.status = Status.Released;
            j.releasedAt = uint40(block.timestamp);
            _unlockBonds(jobId, j);
            emit JobReleased(jobId, j.claimedHash, t.matches, j.reveals);
        } else if (!j.proven || (t.bad != 0 && !_blameUndecided(jobId, t))) {
            _reject(jobId, j, k, t);
        } else {
            // no majority. A round in which no drawn verifier committed is one nobody could re-run in the commit
            // window (code slower than the creator's hint, inputs nobody serves: a creator that processes its own job
            // can make it so): its verifiers are not slashed, and those that revealed their seed not scored or
            // paused either (_timeOut).
            if (j.commits != 0) _payRound(jobId, j, k, type(uint256).max, 0, true, 0);
            if (block.timestamp > j.deadline) {
                _reopen(jobId, j);
            } else {
                _resetRound(j);
                j.submitBlock = uint40(block.number);
                emit VerificationRestarted(jobId, block.number);
            }
        }
        for (uint256 i; i < nFreed; ++i) _dispatch(freed[i]);
    }

    /// @notice Pays result leaves of a Released job: each leaf (a MicroJob's position, output hash, payee) proven
    ///         at its position of resultRoot pays its payee processorPool / MicroJobs, once. Anyone may call; the funds
    ///         go to the payees. Within claimWindow seconds of the release; then sweep() sends the rest away.
    function claim(bytes32 jobId, ResultLeaf[] calldata leaves, bytes32[][] calldata proofs) external onlyDelegated nonReentrant {
        Job storage j = _job(jobId);
        if (j.status != Status.Released) revert WrongStatus(jobId, j.status);
        if (block.timestamp > uint256(j.releasedAt) + _params.claimWindow) revert ClaimWindowClosed();
        if (leaves.length != proofs.length) revert WrongSampleLength(proofs.length, leaves.length);
        uint256 per = j.microJobsPerMacro;
        SampleCtx memory c = SampleCtx({
            samples: j.macroJobs,
            per: per,
            depth: Encoding.treeDepth(uint256(j.macroJobs) * per),
            seed: j.seed,
            entropy: bytes32(0),
            root: j.resultRoot
        });
        uint256 each = _processorPool(j) / (uint256(j.macroJobs) * per);
        address payee;
        uint256 due;
        for (uint256 x; x < leaves.length; ++x) {
            address p = _claimLeaf(jobId, c, leaves[x], proofs[x], each);
            if (p != payee) {
                _send(payee, due);
                payee = p;
                due = 0;
            }
            due += each;
        }
        j.processorPaid += uint96(each * leaves.length);
        _send(payee, due);
    }

    /// @notice After the claim window, the unclaimed part of the processor pool (leaves nobody claimed, rounding
    ///         dust) goes to the treasury. Anyone may call; idempotent.
    function sweep(bytes32 jobId) external onlyDelegated {
        Job storage j = _job(jobId);
        if (j.status != Status.Released) revert WrongStatus(jobId, j.status);
        uint256 until = uint256(j.releasedAt) + _params.claimWindow;
        if (block.timestamp <= until) revert ClaimWindowOpen(until);
        uint256 pool = _processorPool(j);
        uint256 rest = pool - j.processorPaid;
        if (rest == 0) return;
        j.processorPaid = uint96(pool);
        credits[treasury] += rest;
        emit Swept(jobId, rest);
    }

    /// @notice Refunds the fee to the creator after the deadline if the job was never released. Not while a
    ///         verification is under way (verifiers assigned): settle it first. Idempotent.
    function refund(bytes32 jobId) external onlyDelegated nonReentrant {
        Job storage j = _job(jobId);
        Status st = j.status;
        if (st == Status.Refunded) return;
        if (st != Status.Open && st != Status.Submitted) revert WrongStatus(jobId, st);
        if (block.timestamp <= j.deadline) revert DeadlineNotReached(j.deadline);
        if (st == Status.Submitted) {
            if (j.assigned != 0) revert VerificationUnderway();
            if (_queue.contains(jobId)) _queue.remove(jobId);
            _unlockBonds(jobId, j);
        }
        j.status = Status.Refunded;
        uint256 amount = j.fee;
        emit JobRefunded(jobId, j.creator, amount);
        _send(j.creator, amount);
    }
    /// @notice Proves the submitted leaves of the sample (for each MacroJob m, `samples` consecutive MicroJobs from
    ///         validationIndex(m), in order m * samples + t) against resultRoot at their positions. Anyone may call
    ///         once the entropy is set, until the commit deadline (`ProveWindowClosed` after it), so the verifiers
    ///         always have the whole reveal window to answer a proof; a sample still unproven then is the
    ///         submitter's fault at settle. The leaves are emitted so verifiers need not fetch the manifest to reveal.
    function proveSample(bytes32 jobId, ResultLeaf[] calldata leaves, bytes32[][] calldata proofs) external onlyDelegated {
        Job storage j = _job(jobId);
        if (j.status != Status.Submitted) revert WrongStatus(jobId, j.status);
        if (j.proven) revert AlreadyProven();
        if (!j.entropySet) revert SampleNotOpen();
        if (block.number > j.commitDeadline) revert ProveWindowClosed();
        bytes32 entropy = j.sampleEntropy;
        SampleCtx memory c = SampleCtx({
            samples: j.samples,
            per: j.microJobsPerMacro,
            depth: Encoding.treeDepth(uint256(j.macroJobs) * j.microJobsPerMacro),
            seed: j.seed,
            entropy: entropy,
            root: j.resultRoot
        });
        uint256 n = uint256(j.macroJobs) * c.samples;
        if (leaves.length != n || proofs.length != n) revert WrongSampleLength(leaves.length, n);
        bytes32[] memory hashes = new bytes32[](n);
        for (uint256 pos; pos < n; ++pos) {
            hashes[pos] = _checkSampleLeaf(jobId, c, pos, leaves[pos], proofs[pos]);
        }
        bytes32 claimedHash = keccak256(abi.encode(hashes));
        j.claimedHash = claimedHash;
        j.proven = true;
        emit SampleProven(jobId, claimedHash, leaves);
    }

    /// @notice Reveals the verifier's expected leaf hashes against the proven ones (`proven` must be the proven
    ///         sample). Its vote: a match, or the first position that differs; then `badLeaf` must be the proven leaf
    ///         there (its payee is recorded as the processor culprit). Ends the verifier's task and frees it.
    function revealVerification(bytes32 jobId, Reveal calldata r) external onlyDelegated {
        Job storage j = _job(jobId);
        if (j.status != Status.Submitted) revert WrongStatus(jobId, j.status);
        uint256 i = _verifierIndex(jobId, j, msg.sender);
        Verifier storage v = _verifiers[jobId][i];
        if (!v.committed) revert NotCommitted();
        if (v.revealed) revert AlreadyRevealed();
        if (!_commitPhaseOver(j) || !j.proven) revert RevealNotOpen();
        if (block.number > _revealDeadline(j)) revert RevealWindowClosed();
        uint256 bad = _checkReveal(j.claimedHash, _commitments[jobId][i], r);
        if (bad != 0) _culprits[jobId][i] = r.badLeaf.payee;
        uint8 order = j.reveals;
        v.revealed = true;
        v.revealOrder = order;
        v.badPos = uint16(bad);
        v.processorBlame = bad != 0 && r.processorBlame;
        v.digestTag = uint32(bytes4(r.executionDigest));
        j.reveals = order + 1;
        emit VerificationRevealed(jobId, msg.sender, bad, v.processorBlame);
        uint256 score = QoS.commitScore(v.commitOrder) + QoS.roundScore(order);
        if (registry.release(msg.sender, score, QoS.lateRounds(v.commitOrder), true, j.modelId)) _dispatch(msg.sender);
    }

}
