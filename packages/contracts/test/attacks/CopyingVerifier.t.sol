// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";
import {Encoding} from "../../src/libraries/Encoding.sol";

/// Attack 3: verifiers that do not run anything: copy the claim, copy another verifier, or race to commit first;
/// and a release by a minority of reveals.
contract CopyingVerifierTest is AttackBase {
    /// One reveal out of three no longer releases a job: the quorum counts k, not the reveals.
    function test_oneRevealOfThreeDoesNotRelease() public {
        bytes32 id = newJob(2, 4, 1);
        Results memory fake = buildResults(id, 2, 4, "fake", one(attacker));
        submit(id, attacker, fake.root);
        Results memory silent;
        // the attacker's accomplice confirms the fake; two verifiers stay silent
        verifyRound(id, fake, views3(fake, silent, silent), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Submitted), "not released: the round restarts");
        assertEq(escrow.jobs(id).assigned, 0);
    }

    /// A verifier that copies the submitted leaves (the manifest) instead of re-running is outvoted by the honest
    /// majority on a fake job: it is slashed one share and unpaid, while the honest verifiers are paid.
    function test_copyingVerifierEndsPoorerThanHonest() public {
        bytes32 id = newJob(2, 4, 1);
        Results memory truth = honestResults(id, 2, 4);
        Results memory fake = copyResults(truth);
        fake.outputs[0] = keccak256("fake");
        fake.outputs[1] = keccak256("fake");
        fake.outputs[2] = keccak256("fake");
        fake.outputs[3] = keccak256("fake");
        _rebuild(id, 4, fake);
        uint256[] memory before = new uint256[](7);
        for (uint256 i; i < 7; ++i) before[i] = stakeOf(nodeAddr(i));
        submit(id, finalizer, fake.root);
        verifyRound(id, fake, views3(fake, truth, truth), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open));
        uint256 share = (FEE - FEE * 4 / 7) / 3;
        uint256 honestGain;
        uint256 copierLoss;
        for (uint256 i; i < 7; ++i) {
            address n = nodeAddr(i);
            if (escrow.credits(n) == share) ++honestGain;
            if (before[i] - stakeOf(n) == share) ++copierLoss;
        }
        assertEq(honestGain, 2, "two honest verifiers paid one share each");
        assertEq(copierLoss, 1, "the copier slashed one share");
    }

    /// A verifier that confirms an honest job from its public outputs without re-running has no execution digest:
    /// its guess matches nobody's, so it is outvoted by the two that re-ran (slashed one share, unpaid) and the
    /// job is released on their agreeing digests.
    function test_copierOfAnHonestJobIsOutvotedByTheDigest() public {
        bytes32 id = newJob(2, 4, 1);
        Results memory truth = honestResults(id, 2, 4);
        Results memory copier = copyResults(truth);
        copier.execution = keccak256("a guess");
        uint256[] memory before = new uint256[](7);
        for (uint256 i; i < 7; ++i) before[i] = stakeOf(nodeAddr(i));
        submit(id, finalizer, truth.root);
        verifyRound(id, truth, views3(truth, copier, truth), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Released), "released by the two agreeing digests");
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        uint256 share = escrow.verifierShare(id);
        assertEq(escrow.credits(vs[0].node), share, "re-ran: paid");
        assertEq(escrow.credits(vs[2].node), share, "re-ran: paid");
        assertEq(escrow.credits(vs[1].node), 0, "copied: unpaid");
        assertEq(before[_index(vs[1].node)] - stakeOf(vs[1].node), share, "copied: slashed one share");
    }

    /// Three verifiers that each confirm from the outputs, with three different guesses: no digest has a majority
    /// of k, so nothing is released and the round restarts; none of them is paid.
    function test_matchesWithoutAgreeingDigestsDoNotRelease() public {
        bytes32 id = newJob(2, 4, 1);
        Results memory truth = honestResults(id, 2, 4);
        Results memory a = copyResults(truth);
        Results memory b = copyResults(truth);
        Results memory c = copyResults(truth);
        a.execution = keccak256("a");
        b.execution = keccak256("b");
        c.execution = keccak256("c");
        submit(id, finalizer, truth.root);
        verifyRound(id, truth, views3(a, b, c), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Submitted), "not released: the round restarts");
        assertEq(escrow.jobs(id).assigned, 0);
        for (uint256 i; i < 7; ++i) assertEq(escrow.credits(nodeAddr(i)), 0, "nobody paid");
    }

    function _index(address node) private pure returns (uint256 i) {
        while (nodeAddr(i) != node) ++i;
    }

    /// Another verifier's commitment cannot be reused: it is bound to the committer's address.
    function test_copiedCommitmentDoesNotOpen() public {
        bytes32 id = newJob(1, 2, 1);
        Results memory truth = honestResults(id, 1, 2);
        submit(id, finalizer, truth.root);
        select(id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        (,, bytes32[] memory h) = sample(id, truth);
        bytes32 c0 = Encoding.commitment(Encoding.verifierHash(h, truth.execution), false, bytes32("s"), vs[0].node);
        vm.prank(vs[0].node);
        escrow.commitVerification(id, c0);
        vm.prank(vs[1].node);
        escrow.commitVerification(id, c0); // copies verifier 0's commitment
        vm.prank(vs[2].node);
        escrow.commitVerification(id, c0);
        prove(id, truth);
        JobEscrowBase.ResultLeaf memory none;
        vm.prank(vs[1].node);
        vm.expectRevert(JobEscrowBase.RevealMismatch.selector);
        escrow.revealVerification(id, JobEscrowBase.Reveal(bytes32("s"), false, truth.execution, h, h, none));
    }

    /// Verifiers are paid for agreeing with the outcome, not for speed: the first and the last to commit and
    /// reveal get the same share, so racing to commit without re-running earns nothing extra.
    function test_noPremiumForSpeed() public {
        bytes32 id = newJob(2, 4, 1);
        Results memory truth = honestResults(id, 2, 4);
        submit(id, finalizer, truth.root);
        verifyRound(id, truth, views3(truth, truth, truth), noBlame(3));
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        assertEq(escrow.credits(vs[0].node), escrow.credits(vs[2].node));
        assertEq(escrow.credits(vs[0].node), escrow.verifierShare(id));
    }
}
