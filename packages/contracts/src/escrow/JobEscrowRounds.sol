// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {QoS} from "../libraries/QoS.sol";
import {Encoding} from "../libraries/Encoding.sol";
import {JobEscrowDispatch} from "./JobEscrowDispatch.sol";

/// @title JobEscrowRounds
/// @notice The rules of a verification round: checking proven sample leaves, claims and reveals, the tally, paying
///         and penalising verifiers, rejecting (culprit slashing), timing out and reopening (docs/settlement.md).
abstract contract JobEscrowRounds is JobEscrowDispatch {
    struct Tally {
        uint256 matches; // the largest group of matching votes that agree on the execution digest
        uint32 tag; // that group's digest tag
        uint256 bad; // the sample position (1-based) a majority found wrong, 0 if none
        bool blame; // the majority of those blame the processor
        bool blameTie; // exactly half of those blame the processor (the other half the submitter)
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
        if (Encoding.commitment(Encoding.verifierHash(r.expected, r.executionDigest), r.processorBlame, r.salt, msg.sender)
                != commitment_) {
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

    function _tally(bytes32 jobId, uint256 k) internal view returns (Tally memory t) {
        for (uint256 i; i < k; ++i) {
            Verifier storage v = _verifiers[jobId][i];
            if (!v.revealed) continue;
            uint256 b = v.badPos;
            if (b == 0) {
                uint256 same = _sameDigest(jobId, k, v.digestTag);
                if (same > t.matches) (t.matches, t.tag) = (same, v.digestTag);
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
                t.blameTie = blames * 2 == votes;
                t.payee = _culprits[jobId][i];
            }
        }
    }

    /// @dev The revealed matching votes whose execution digest has `tag`.
    function _sameDigest(bytes32 jobId, uint256 k, uint32 tag) internal view returns (uint256 n) {
        for (uint256 x; x < k; ++x) {
            Verifier storage w = _verifiers[jobId][x];
            if (w.revealed && w.badPos == 0 && w.digestTag == tag) ++n;
        }
    }

    /// @dev A majority found the same leaf wrong but splits evenly on whose fault it is, and the split decides the
    ///      culprit (the leaf pays a registered node other than the submitter). Neither side is slashed then: a tie
    ///      used to blame the submitter, so one accomplice of a faking processor among the verifiers, voting "wrong
    ///      leaf, the submitter's fault" beside one honest verifier while another was silent, had the honest finalizer
    ///      slashed the bond for the processor's fake (attacks/BlameTie.t.sol).
    function _blameUndecided(bytes32 jobId, Tally memory t) internal view returns (bool) {
        return t.blameTie && _answerable(jobId, t.payee);
    }

    function _reject(bytes32 jobId, Job storage j, uint256 k, Tally memory t) internal {
        address submitter = j.submitter;
        address culprit = submitter;
        if (t.blame && _answerable(jobId, t.payee)) culprit = t.payee;
        uint256 bond = _bond(j);
        // this job's bonds only: a slash leaves the locked stake as it is, so the culprit's other bonds stay locked
        _unlockBonds(jobId, j);
        uint256 slashed = registry.slash(culprit, bond);
        // verifiers that found the fault (all that committed when nobody proved the sample) get their share. An
        // unproven round nobody committed in judges no verifier (a submitter that withholds its proof and its results
        // must not cost them a share each): the bond goes to the treasury
        if (j.commits != 0) _payRound(jobId, j, k, t.bad == 0 ? type(uint256).max - 1 : t.bad, 0, false, slashed);
        else credits[treasury] += slashed;
        j.status = Status.Open;
        j.rejections += 1;
        j.submitter = address(0);
        j.resultRoot = bytes32(0);
        _resetRound(j);
        emit JobRejected(jobId, culprit, slashed, submitter, t.bad == 0 ? type(uint256).max : t.bad - 1);
        emit JobReopened(jobId);
    }

    /// @dev Pays one verifier share to each verifier on the winning side (`side`: 0 = matched with execution digest
    ///      tag `tag`, a sample position = found that leaf wrong, max - 1 = committed (unproven sample), max =
    ///      revealed) from `budget`, plus the penalties of the others when `penaltiesFund`; slashes one share from
    ///      each other verifier; what is left goes to the treasury.
    function _payRound(
        bytes32 jobId,
        Job storage j,
        uint256 k,
        uint256 side,
        uint32 tag,
        bool penaltiesFund,
        uint256 budget
    ) internal {
        uint256 share = _verifierPool(j) / k;
        bool[] memory win = new bool[](k);
        uint256 penalties;
        for (uint256 i; i < k; ++i) {
            Verifier storage v = _verifiers[jobId][i];
            if (side == type(uint256).max) win[i] = v.revealed;
            else if (side == type(uint256).max - 1) win[i] = v.committed;
            else win[i] = v.revealed && v.badPos == side && (side != 0 || v.digestTag == tag);
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
    ///      A verifier that committed cannot reveal without a proven sample: when nobody proved it, nobody could
    ///      verify, and the task is not scored at all (the QoS rules ignore tasks nobody could verify). Nor is the
    ///      task of a verifier that revealed its seed in a round where no verifier committed: it was there, and
    ///      nobody could re-run the sample in the commit window (a job made so by its creator must not pause or
    ///      score honest nodes for the price of its gas).
    function _timeOut(bytes32 jobId, Job storage j, uint256 k) internal returns (address[] memory freed, uint256 n) {
        if (j.reveals == k) return (freed, 0);
        freed = new address[](k);
        bool proven = j.proven;
        bool anyCommit = j.commits != 0;
        for (uint256 i; i < k; ++i) {
            Verifier storage v = _verifiers[jobId][i];
            if (v.revealed) continue;
            bool c = v.committed;
            emit VerifierTimedOut(jobId, v.node, c);
            uint256 timedOut = c ? 1 + QoS.lateRounds(v.commitOrder) : 2;
            bool record = c ? proven : anyCommit || !v.seeded;
            if (registry.release(v.node, c ? QoS.commitScore(v.commitOrder) : 0, timedOut, record, bytes32(0))) {
                freed[n++] = v.node;
            }
        }
    }

    /// @dev Back to Open without a rejection (no verification could finish before the deadline).
    function _reopen(bytes32 jobId, Job storage j) internal {
        _unlockBonds(jobId, j);
        j.status = Status.Open;
        j.submitter = address(0);
        j.resultRoot = bytes32(0);
        _resetRound(j);
        emit JobReopened(jobId);
    }
}
