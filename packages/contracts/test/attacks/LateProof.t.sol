// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// A proof sent in the last block of the reveal window: reveals need the proven sample, so no verifier could answer
/// it, settle found "proven, no quorum" and restarted the round with a new draw and a new sample. A cheating submitter
/// that kept its manifest to itself (so nobody else could prove) proved at once when the sample missed its fakes and
/// in block revealDeadline when it hit them: a free re-roll for it, one share slashed from every honest verifier that
/// had committed. Now nobody proves after the commit deadline (`ProveWindowClosed`), so every proof leaves the whole
/// reveal window to answer it, and a sample still unproven at settle is rejected against the submitter.
contract LateProofTest is AttackBase {
    uint32 constant M = 4;
    uint32 constant P = 8;

    /// The honest verifiers commit; the submitter tries to prove its sample in block revealDeadline: refused.
    function _proveTooLate(bytes32 id, Results memory honest, Results memory fake)
        internal returns (JobEscrowBase.Job memory j, JobEscrowBase.ResultLeaf[] memory leaves, bytes32[][] memory proofs)
    {
        commitViews(id, views3(honest, honest, honest), noBlame(3));
        j = escrow.jobs(id);
        vm.roll(j.revealDeadline);
        (leaves, proofs,) = sample(id, fake);
        vm.prank(attacker);
        vm.expectRevert(JobEscrowBase.ProveWindowClosed.selector);
        escrow.proveSample(id, leaves, proofs);
    }

    /// A job whose first round's sample catches the fake of MicroJob 0 (paid to the submitter, a thief's leaf).
    function _caughtRound() internal returns (bytes32 id, Results memory honest, Results memory fake) {
        return caughtFakeRound(M, P, 3, 4000);
    }

    /// The sample catches the fake; the honest verifiers commit; the submitter holds its proof back to block
    /// revealDeadline. The proof is refused, and settle rejects the round against the submitter: it is slashed the
    /// bond, and the verifiers that committed are paid their share out of it instead of losing one.
    function test_aProofTooLateToAnswerIsRefusedAndRejectsTheSubmitter() public {
        (bytes32 id, Results memory honest, Results memory fake) = _caughtRound();
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        uint256[3] memory st;
        for (uint256 i; i < 3; ++i) st[i] = stakeOf(vs[i].node);
        uint256 attacker0 = stakeOf(attacker);
        uint256 bond = escrow.bondOf(id);
        uint256 share = escrow.verifierShare(id);

        (JobEscrowBase.Job memory j, JobEscrowBase.ResultLeaf[] memory leaves, bytes32[][] memory proofs) = _proveTooLate(id, honest, fake);
        // the last block a proof is taken in is the commit deadline
        vm.roll(j.commitDeadline + 1);
        vm.prank(attacker);
        vm.expectRevert(JobEscrowBase.ProveWindowClosed.selector);
        escrow.proveSample(id, leaves, proofs);

        vm.roll(j.revealDeadline + 1);
        vm.prank(attacker);
        escrow.settle(id);

        j = escrow.jobs(id);
        assertEq(uint256(j.status), uint256(JobEscrowBase.Status.Open), "rejected, not restarted");
        assertEq(j.rejections, 1, "an unproven sample is the submitter's fault");
        assertEq(attacker0 - stakeOf(attacker), bond, "the submitter is slashed the bond");
        for (uint256 i; i < 3; ++i) {
            assertEq(stakeOf(vs[i].node), st[i], "an honest verifier that committed loses nothing");
            assertEq(escrow.credits(vs[i].node), share, "and is paid its share out of the slash");
        }
    }

    /// The whole strategy: prove at once when the sample misses the fakes (one per MacroJob), hold the proof back
    /// when it hits them. Before, every hit was re-rolled for free until a sample missed them all and the fakes were
    /// paid; now the first hit rejects the submission and costs the submitter its bond.
    function test_holdingTheProofBackNoLongerRerollsTheSample() public {
        bytes32 id = newJob(M, P, 1);
        Results memory honest = honestResults(id, M, P);
        Results memory fake = copyResults(honest);
        for (uint256 m; m < M; ++m) {
            fake.outputs[m * P] = keccak256(abi.encode("fake", m));
            fake.payees[m * P] = attacker;
        }
        _rebuild(id, P, fake);
        submit(id, attacker, fake.root);
        uint256 attacker0 = stakeOf(attacker);
        uint256 bond = escrow.bondOf(id);

        for (uint256 guard; guard < 40; ++guard) {
            select(id);
            bool hit;
            for (uint256 m; m < M; ++m) if (sampleHits(id, m * P)) hit = true;
            if (!hit) {
                // a lucky sample: proven at once, released with the fakes unseen (the sampling risk, Economics)
                verifyTail(id, fake, honest);
                assertEq(status(id), uint256(JobEscrowBase.Status.Released));
                // the lucky case is not this test's subject: start again from a fresh job
                id = newJob(M, P, 1);
                honest = honestResults(id, M, P);
                fake = copyResults(honest);
                for (uint256 m; m < M; ++m) {
                    fake.outputs[m * P] = keccak256(abi.encode("fake", m));
                    fake.payees[m * P] = attacker;
                }
                _rebuild(id, P, fake);
                submit(id, attacker, fake.root);
                attacker0 = stakeOf(attacker);
                continue;
            }
            (JobEscrowBase.Job memory j,,) = _proveTooLate(id, honest, fake);
            vm.roll(j.revealDeadline + 1);
            escrow.settle(id);
            break;
        }
        JobEscrowBase.Job memory after_ = escrow.jobs(id);
        assertEq(uint256(after_.status), uint256(JobEscrowBase.Status.Open), "the caught submission is rejected");
        assertEq(after_.rejections, 1);
        assertEq(attacker0 - stakeOf(attacker), bond, "the held-back proof cost the bond");
    }

    function verifyTail(bytes32 id, Results memory submitted, Results memory honest) internal {
        commitViews(id, views3(honest, honest, honest), noBlame(3));
        prove(id, submitted);
        vm.roll(block.number + 1);
        revealViews(id, submitted, views3(honest, honest, honest), noBlame(3));
        escrow.settle(id);
    }
}
