// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// Attack 2, the block producer's version: whoever sets blockhash(submitBlock + 1), or reads it first, would know
/// the sample and could grind it. The sample also mixes the drawn verifiers' seeds, each committed before its node
/// was drawn: the draw's blockhash alone does not give it, no verifier chooses its seed, and withholding one (the
/// last revealer picking between two samples) costs the bond.
contract VerifierSeedsTest is AttackBase {
    struct Outcome {
        bytes32 drawEntropy;
        bytes32 sampleEntropy;
        address[] verifiers;
    }

    /// Two histories with the same job, submission, blocks and draw blockhash, whose nodes committed different
    /// seeds before the job existed: the same verifiers are drawn, the samples differ. Before the last seed nothing
    /// can be proven or committed.
    function test_theDrawBlockhashAloneDoesNotGiveTheSample() public {
        uint256 snap = vm.snapshotState();
        Outcome memory a = _run(false);
        vm.revertToState(snap);
        for (uint256 i; i < 7; ++i) {
            vm.prank(nodeAddr(i));
            escrow.commitSeed(keccak256(abi.encode(_otherSeed(nodeAddr(i)))), 0);
        }
        Outcome memory b = _run(true);
        assertTrue(a.drawEntropy == b.drawEntropy, "same draw blockhash");
        for (uint256 i; i < 3; ++i) assertTrue(a.verifiers[i] == b.verifiers[i], "same verifiers");
        assertTrue(a.sampleEntropy != b.sampleEntropy, "the seeds decide the sample");
        assertTrue(a.sampleEntropy != keccak256(abi.encode(a.drawEntropy, bytes32(0))));
    }

    /// A drawn verifier cannot pick its seed: a commitment made after it was drawn does not count, nor does any
    /// other preimage.
    function test_aVerifierCannotChooseItsSeedAfterTheDraw() public {
        bytes32 id = newJob(4, 8, 1);
        submit(id, finalizer, honestResults(id, 4, 8).root);
        vm.roll(block.number + 2);
        escrow.selectVerifiers(id);
        address v = escrow.verifiersOf(id)[0].node;
        vm.prank(v);
        vm.expectRevert(JobEscrowBase.BadSeed.selector);
        escrow.revealSeed(id, keccak256("any seed I like"), bytes32(0));

        bytes32 chosen = keccak256("a seed that samples what I want");
        vm.prank(v);
        escrow.commitSeed(keccak256(abi.encode(chosen)), 7);
        vm.roll(block.number + 1);
        vm.prank(v);
        vm.expectRevert(JobEscrowBase.BadSeed.selector);
        escrow.revealSeed(id, chosen, bytes32(0));
    }

    /// The last verifier sees the others' seeds and could withhold its own to switch to the other sample. It then
    /// may not vote, and closing the window slashes it the bond (2 x fee at the defaults), more than the whole
    /// processor pool a second sample could save a cheating submitter. The other verifiers finish the round.
    function test_withholdingASeedCostsTheBondAndTheVote() public {
        bytes32 id = newJob(4, 8, 1);
        Results memory r = honestResults(id, 4, 8);
        submit(id, finalizer, r.root);
        vm.roll(block.number + 2);
        escrow.selectVerifiers(id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        revealSeedOf(id, vs[0].node);
        revealSeedOf(id, vs[1].node);
        address withholder = vs[2].node;
        JobEscrowBase.Job memory j = escrow.jobs(id);
        assertFalse(j.entropySet);

        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.TooEarly.selector, uint256(j.seedDeadline) + 1));
        escrow.closeSeeds(id);
        vm.roll(uint256(j.seedDeadline) + 1);
        (,, uint32 index) = escrow.seedCommits(withholder);
        bytes32 seed = seedOf(withholder, index);
        vm.prank(withholder);
        vm.expectRevert(JobEscrowBase.SeedWindowClosed.selector);
        escrow.revealSeed(id, seed, bytes32(0));

        uint256 stake0 = stakeOf(withholder);
        uint256 bond = escrow.bondOf(id);
        assertTrue(bond > escrow.processorPool(id), "the penalty exceeds what a second sample is worth");
        vm.prank(address(0xD1CE));
        escrow.closeSeeds(id);
        assertTrue(escrow.jobs(id).entropySet);
        uint256 slashed = stake0 - stakeOf(withholder);
        assertEq(slashed, bond < stake0 ? bond : stake0);
        assertEq(escrow.credits(treasury), slashed);
        escrow.closeSeeds(id); // idempotent
        assertEq(escrow.credits(treasury), slashed);

        vm.prank(withholder);
        vm.expectRevert(JobEscrowBase.NoSeed.selector);
        escrow.commitVerification(id, keccak256("vote"));

        Results memory silent;
        Results[] memory views = views3(r, r, silent); // the withholder does not vote
        commitViews(id, views, noBlame(3));
        prove(id, r);
        vm.roll(escrow.jobs(id).commitDeadline + 1);
        revealViews(id, r, views, noBlame(3));
        vm.roll(escrow.jobs(id).revealDeadline + 1);
        escrow.settle(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Released));
    }

    function _otherSeed(address a) internal pure returns (bytes32) {
        return keccak256(abi.encode("other history", a));
    }

    function _run(bool otherSeeds) internal returns (Outcome memory o) {
        bytes32 id = newJob(4, 8, 1);
        Results memory r = honestResults(id, 4, 8);
        submit(id, finalizer, r.root);
        vm.roll(block.number + 2);
        escrow.selectVerifiers(id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        o.verifiers = new address[](vs.length);
        (JobEscrowBase.ResultLeaf[] memory leaves, bytes32[][] memory proofs,) = sample(id, r);
        vm.expectRevert(JobEscrowBase.SampleNotOpen.selector);
        escrow.proveSample(id, leaves, proofs);
        for (uint256 i; i < vs.length; ++i) {
            o.verifiers[i] = vs[i].node;
            if (!otherSeeds) {
                revealSeedOf(id, vs[i].node);
            } else {
                vm.prank(vs[i].node);
                escrow.revealSeed(id, _otherSeed(vs[i].node), bytes32(0));
            }
        }
        JobEscrowBase.Job memory j = escrow.jobs(id);
        assertTrue(j.entropySet, "the k-th seed fixes the sample");
        o.drawEntropy = j.drawEntropy;
        o.sampleEntropy = j.sampleEntropy;
    }
}
