// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {JobEscrowFixture} from "./utils/JobEscrowFixture.sol";
import {JobEscrow} from "../src/JobEscrow.sol";
import {JobEscrowBase} from "../src/escrow/JobEscrowBase.sol";
import {JobEscrowSettlement} from "../src/escrow/JobEscrowSettlement.sol";
import {JobEscrowSeeds} from "../src/escrow/JobEscrowSeeds.sol";
import {Encoding} from "../src/libraries/Encoding.sol";
import {NodeRegistryBase} from "../src/registry/NodeRegistryBase.sol";

/// A job's life in the escrow: createJob, commit-reveal submission, the verification round (sample proof and
/// verifier commit-reveal), its outcomes (release and claims, penalties, restart, refund), guards and gas budgets.
contract JobEscrowTest is JobEscrowFixture {
    address p1 = address(0xA11CE);
    address p2 = address(0xB0B);

    function honest(bytes32 id, uint32 macroJobs, uint32 per) internal pure returns (Results memory) {
        return buildResults(id, macroJobs, per, "honest", two(address(0xA11CE), address(0xB0B)));
    }

    function toReleased(uint32 macroJobs, uint32 per) internal returns (bytes32 id, Results memory r) {
        id = createJob(jobParams(macroJobs, per, 3), FEE);
        r = honest(id, macroJobs, per);
        submit(id, sub, r.root);
        verifyRound(id, r, views3(r, r, r), noBlame(3));
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrowBase.Status.Released));
    }

    // ------------------------------------------------ createJob

    function test_createJob() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(4, 8, 3);
        bytes32 id = createJob(p, FEE);
        JobEscrowBase.Job memory j = escrow.jobs(id);
        assertEq(j.creator, creator);
        assertEq(uint256(j.status), uint256(JobEscrowBase.Status.Open));
        assertEq(j.fee, FEE);
        assertEq(j.samples, 1);
        // the fee buys 32 processor runs and 3 x 4 verifier re-runs at the same price
        assertEq(escrow.processorPool(id), FEE * 8 / 11);
        assertEq(escrow.verifierShare(id), (FEE - FEE * 8 / 11) / 3);
        assertEq(escrow.bondOf(id), 2 * FEE);
        assertEq(id, escrow.computeJobId(creator, p.specCid, p.nonce));
    }

    function test_createJobErrors() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
        p.k = 8;
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.InvalidVerifierCount.selector, 8, 3, 7));
        escrow.createJob{value: FEE}(p);
        p = jobParams(4, 8, 3);
        p.samples = 9;
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.InvalidSamples.selector, 9, 8));
        escrow.createJob{value: FEE}(p);
        p = jobParams(65, 1, 3); // 65 sample leaves > maxSampleLeaves 64
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.InvalidSamples.selector, 1, 1));
        escrow.createJob{value: FEE}(p);
        p = jobParams(1, 1, 3);
        p.deadline = uint40(block.timestamp + 31 days);
        vm.prank(creator);
        vm.expectRevert(JobEscrowBase.InvalidDeadline.selector);
        escrow.createJob{value: FEE}(p);
        p = jobParams(1, 1, 3);
        p.macroJobs = 0;
        vm.prank(creator);
        vm.expectRevert(JobEscrowBase.InvalidSlicing.selector);
        escrow.createJob{value: FEE}(p);
        p = jobParams(1, 8, 3); // each verifier share >= 1000 wei: fee >= 1000 * (8 + 3) / 1
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.UnderfundedJob.selector, 10_999, 11_000));
        escrow.createJob{value: 10_999}(p);
        p = jobParams(1, 1, 3);
        bytes32 id = createJob(p, FEE);
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.JobExists.selector, id));
        escrow.createJob{value: FEE}(p);
    }

    // ------------------------------------------------ commit-reveal submission

    function test_submitErrors() public {
        bytes32 id = createJob(jobParams(1, 2, 3), FEE);
        Results memory r = honest(id, 1, 2);
        vm.prank(sub);
        vm.expectRevert(JobEscrowBase.NoResultCommit.selector);
        escrow.submitResults(id, r.root, "bafy-manifest", new address[](0));
        bytes32 c = Encoding.resultCommitment(id, 0, r.root, "bafy-manifest", sub);
        vm.prank(sub);
        escrow.commitResults(id, c);
        vm.prank(sub);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.TooEarly.selector, block.number + 1));
        escrow.submitResults(id, r.root, "bafy-manifest", new address[](0));
        vm.roll(block.number + 1);
        vm.prank(sub);
        vm.expectRevert(JobEscrowBase.ResultCommitMismatch.selector);
        escrow.submitResults(id, r.root, "bafy-other", new address[](0));
        vm.prank(address(0xBAD));
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.NotActiveNode.selector, address(0xBAD)));
        escrow.commitResults(id, c);
        vm.prank(sub);
        escrow.submitResults(id, r.root, "bafy-manifest", new address[](0));
        assertEq(registry.lockedStake(sub), 2 * FEE);
        vm.prank(sub);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.WrongStatus.selector, id, JobEscrowBase.Status.Submitted));
        escrow.commitResults(id, c);
    }

    function test_submitNeedsFreeStakeForTheBond() public {
        address small = registerNode(40, GPU_A, 24, 15 ether);
        bytes32 id = createJob(jobParams(1, 2, 3), FEE); // bond 20 ether
        Results memory r = honest(id, 1, 2);
        vm.prank(small);
        escrow.commitResults(id, Encoding.resultCommitment(id, 0, r.root, "bafy-manifest", small));
        vm.roll(block.number + 1);
        vm.prank(small);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.InsufficientFreeStake.selector, 15 ether, 20 ether));
        escrow.submitResults(id, r.root, "bafy-manifest", new address[](0));
    }

    // ------------------------------------------------ the happy path

    function test_fullLifecycleReleasedAndClaims() public {
        (bytes32 id, Results memory r) = toReleased(2, 4);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        uint256 share = escrow.verifierShare(id);
        for (uint256 i; i < 3; ++i) assertEq(escrow.credits(vs[i].node), share); // equal, whatever the order
        assertEq(escrow.credits(treasury), escrow.processorPool(id) * 0 + (FEE - escrow.processorPool(id) - 3 * share));
        assertEq(registry.lockedStake(sub), 0);
        JobEscrowBase.ResultLeaf[] memory leaves = new JobEscrowBase.ResultLeaf[](1);
        bytes32[][] memory proofs = new bytes32[][](1);
        leaves[0] = leafAt(id, r, 4, 3);
        proofs[0] = merkleProof(r.leaves, 3);
        // a leaf with another payee is not in the tree
        leaves[0].payee = address(0xBAD);
        vm.expectRevert(JobEscrowBase.InvalidProof.selector);
        escrow.claim(id, leaves, proofs);
        leaves[0].payee = p2;
        uint256 b1 = p1.balance;
        uint256 b2 = p2.balance;
        claimAll(id, r, 4);
        uint256 each = escrow.processorPool(id) / 8;
        assertEq(p1.balance - b1, 4 * each);
        assertEq(p2.balance - b2, 4 * each);
        assertTrue(escrow.isClaimed(id, 7));
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.AlreadyClaimed.selector, 3));
        escrow.claim(id, leaves, proofs);
    }

    function test_commitWindowScalesWithRerunTime() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(4, 8, 3);
        p.samples = 2;
        p.secondsPerMicroJob = 30; // 8 re-runs x 30 s = 240 s = 120 blocks of 2 s
        bytes32 id = createJob(p, FEE);
        Results memory r = honest(id, 4, 8);
        submit(id, sub, r.root);
        select(id);
        assertEq(escrow.jobs(id).commitDeadline, block.number + escrow.SEED_WINDOW_BLOCKS() + 20 + 120);
    }

    function test_commitRevealErrors() public {
        bytes32 id = createJob(jobParams(2, 2, 3), FEE);
        Results memory r = honest(id, 2, 2);
        submit(id, sub, r.root);
        select(id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        vm.prank(address(0xBAD));
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.NotVerifier.selector, address(0xBAD)));
        escrow.commitVerification(id, bytes32("c"));
        vm.prank(vs[0].node);
        vm.expectRevert(JobEscrowBase.EmptyCommitment.selector);
        escrow.commitVerification(id, bytes32(0));
        commitViews(id, views3(r, r, r), noBlame(3));
        vm.prank(vs[0].node);
        vm.expectRevert(JobEscrowBase.AlreadyCommitted.selector);
        escrow.commitVerification(id, bytes32("c"));
        // reveal needs the proven sample
        (,, bytes32[] memory h) = sample(id, r);
        JobEscrowBase.ResultLeaf memory none;
        vm.prank(vs[0].node);
        vm.expectRevert(JobEscrowBase.RevealNotOpen.selector);
        escrow.revealVerification(id, JobEscrowBase.Reveal(bytes32(uint256(1)), false, r.execution, h, h, none));
        prove(id, r);
        (JobEscrowBase.ResultLeaf[] memory sl, bytes32[][] memory sp,) = sample(id, r);
        vm.expectRevert(JobEscrowBase.AlreadyProven.selector);
        escrow.proveSample(id, sl, sp);
        // a reveal that does not open the commitment
        vm.prank(vs[0].node);
        vm.expectRevert(JobEscrowBase.RevealMismatch.selector);
        escrow.revealVerification(id, JobEscrowBase.Reveal(bytes32(uint256(9)), false, r.execution, h, h, none));
        revealViews(id, r, views3(r, r, r), noBlame(3));
        vm.prank(vs[0].node);
        vm.expectRevert(JobEscrowBase.AlreadyRevealed.selector);
        escrow.revealVerification(id, JobEscrowBase.Reveal(bytes32(uint256(1)), false, r.execution, h, h, none));
    }

    function test_proveSampleErrors() public {
        bytes32 id = createJob(jobParams(2, 4, 3), FEE);
        Results memory r = honest(id, 2, 4);
        submit(id, sub, r.root);
        (JobEscrowBase.ResultLeaf[] memory leaves, bytes32[][] memory proofs,) = (
            new JobEscrowBase.ResultLeaf[](0), new bytes32[][](0), new bytes32[](0)
        );
        vm.expectRevert(JobEscrowBase.SampleNotOpen.selector);
        escrow.proveSample(id, leaves, proofs);
        select(id);
        (leaves, proofs,) = sample(id, r);
        // a leaf at the wrong position
        JobEscrowBase.ResultLeaf memory good = leaves[0];
        leaves[0] = leafAt(id, r, 4, (good.index + 1) % 4);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.WrongSampleLeaf.selector, 0));
        escrow.proveSample(id, leaves, proofs);
        leaves[0] = good;
        leaves[1].outputHash = bytes32("forged");
        vm.expectRevert(JobEscrowBase.InvalidProof.selector);
        escrow.proveSample(id, leaves, proofs);
        // after the commit deadline nobody may prove: the verifiers would have no reveal window left to answer it
        leaves[1] = leafAt(id, r, 4, leaves[1].macroIndex * 4 + leaves[1].index);
        vm.roll(escrow.jobs(id).commitDeadline + 1);
        vm.expectRevert(JobEscrowBase.ProveWindowClosed.selector);
        escrow.proveSample(id, leaves, proofs);
    }


    // ------------------------------------------------ outcomes

    function test_silentVerifierPenalisedAndTwoOfThreeRelease() public {
        bytes32 id = createJob(jobParams(2, 2, 3), FEE);
        Results memory r = honest(id, 2, 2);
        submit(id, sub, r.root);
        Results memory silent;
        verifyRound(id, r, views3(r, r, silent), noBlame(3));
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrowBase.Status.Released));
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        uint256 share = escrow.verifierShare(id);
        assertEq(escrow.credits(vs[2].node), 0);
        assertEq(registry.nodeInfo(vs[2].node).stake, 2 ether - share);
        assertEq(escrow.credits(vs[0].node), share);
    }

    /// @dev A job of 1 x 2 MicroJobs submitted, its 3 verifiers drawn, and their stakes before the round.
    function drawnRound()
        internal
        returns (bytes32 id, Results memory r, JobEscrowBase.Verifier[] memory vs, uint256[] memory before)
    {
        id = createJob(jobParams(1, 2, 3), FEE);
        r = honest(id, 1, 2);
        submit(id, sub, r.root);
        select(id);
        vs = escrow.verifiersOf(id);
        before = new uint256[](3);
        for (uint256 i; i < 3; ++i) before[i] = registry.nodeInfo(vs[i].node).stake;
    }

    function test_noCommitsRestartsRoundWithoutSlashing() public {
        (bytes32 id, Results memory r, JobEscrowBase.Verifier[] memory vs, uint256[] memory before) = drawnRound();
        Results memory silent;
        verifyRound(id, r, views3(silent, silent, silent), noBlame(3));
        JobEscrowBase.Job memory j = escrow.jobs(id);
        assertEq(uint256(j.status), uint256(JobEscrowBase.Status.Submitted));
        assertEq(j.assigned, 0);
        assertEq(j.submitBlock, block.number);
        // nobody committed: nobody could re-run the sample in the window. Every verifier revealed its seed (it was
        // there): not slashed, not scored, not paused
        assertEq(escrow.credits(treasury), 0);
        for (uint256 i; i < 3; ++i) {
            assertEq(registry.nodeInfo(vs[i].node).stake, before[i]);
            (, uint256 tasks,, uint256 timeouts,) = registry.qosState(vs[i].node);
            assertEq(tasks, 0, "no task score recorded");
            assertEq(timeouts, 0);
            assertFalse(registry.nodeInfo(vs[i].node).paused);
        }
    }

    function test_noCommitsStillPausesAVerifierThatMissedItsSeed() public {
        bytes32 id = createJob(jobParams(1, 2, 3), FEE);
        Results memory r = honest(id, 1, 2);
        submit(id, sub, r.root);
        vm.roll(block.number + 2);
        escrow.selectVerifiers(id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        uint256 absentStake = registry.nodeInfo(vs[2].node).stake;
        revealSeedOf(id, vs[0].node);
        revealSeedOf(id, vs[1].node);
        vm.roll(escrow.jobs(id).seedDeadline + 1);
        escrow.closeSeeds(id); // vs[2] never revealed: offline, slashed the bond
        prove(id, r);
        vm.roll(escrow.jobs(id).commitDeadline + 1);
        vm.roll(escrow.jobs(id).revealDeadline + 1);
        escrow.settle(id);
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrowBase.Status.Submitted), "restarted");
        for (uint256 i; i < 2; ++i) assertFalse(registry.nodeInfo(vs[i].node).paused, "seeded: not paused");
        assertTrue(registry.nodeInfo(vs[2].node).paused, "missed its seed: paused");
        (, uint256 tasks,, uint256 timeouts,) = registry.qosState(vs[2].node);
        assertEq(tasks, 1);
        assertEq(timeouts, 2);
        assertGt(absentStake, registry.nodeInfo(vs[2].node).stake, "slashed for the seed");
    }

    function test_oneCommitOfThreeRestartsAndSlashesTheSilent() public {
        (bytes32 id, Results memory r, JobEscrowBase.Verifier[] memory vs, uint256[] memory before) = drawnRound();
        Results memory silent;
        verifyRound(id, r, views3(r, silent, silent), noBlame(3));
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrowBase.Status.Submitted)); // no majority: restarted
        // one verifier could re-run the sample: the two silent ones are slashed one share each, the voter paid one
        uint256 share = escrow.verifierShare(id);
        assertEq(registry.nodeInfo(vs[0].node).stake, before[0]);
        assertEq(escrow.credits(vs[0].node), share);
        for (uint256 i = 1; i < 3; ++i) assertEq(registry.nodeInfo(vs[i].node).stake, before[i] - share);
        assertEq(escrow.credits(treasury), share);
    }

    function test_unprovenSampleIsNotScoredAgainstTheVerifiersThatCommitted() public {
        bytes32 id = createJob(jobParams(1, 2, 3), FEE);
        Results memory r = honest(id, 1, 2);
        submit(id, sub, r.root);
        select(id);
        // the submitter never proves its sample: two verifiers commit (they cannot reveal), one stays silent
        Results memory silent;
        commitViews(id, views3(r, r, silent), noBlame(3));
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        vm.roll(block.number + 200);
        escrow.settle(id);
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrowBase.Status.Open)); // rejected: nothing proven
        for (uint256 i; i < 2; ++i) {
            // nobody could verify: no task recorded, score and timeouts untouched, still in selection
            (uint256 score, uint256 tasks,, uint256 timeouts,) = registry.qosState(vs[i].node);
            assertEq(tasks, 0);
            assertEq(timeouts, 0);
            assertEq(score, 1000);
            assertTrue(registry.nodeInfo(vs[i].node).eligible);
        }
        // the silent one could have committed: scored 0 with 2 timed-out rounds, and paused
        (uint256 s2, uint256 t2,, uint256 o2,) = registry.qosState(vs[2].node);
        assertEq(t2, 1);
        assertEq(o2, 2);
        assertEq(s2, 0);
        assertTrue(registry.nodeInfo(vs[2].node).paused);
    }

    function test_unprovenSampleNobodyCommittedToCostsOnlyTheSubmitter() public {
        bytes32 id = createJob(jobParams(1, 2, 3), FEE);
        submit(id, sub, honest(id, 1, 2).root);
        select(id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        uint256[] memory before = new uint256[](3);
        for (uint256 i; i < 3; ++i) before[i] = registry.nodeInfo(vs[i].node).stake;
        uint256 subStake = registry.nodeInfo(sub).stake;
        uint256 treasury0 = escrow.credits(treasury);
        // the submitter neither proves its sample nor serves what a verifier would need to commit without a proof
        vm.roll(block.number + 200);
        escrow.settle(id);
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrowBase.Status.Open), "rejected: nothing proven");
        uint256 bond = subStake - registry.nodeInfo(sub).stake;
        assertGt(bond, 0, "the submitter is slashed its bond");
        assertEq(escrow.credits(treasury) - treasury0, bond, "all of it to the treasury");
        for (uint256 i; i < 3; ++i) {
            assertEq(registry.nodeInfo(vs[i].node).stake, before[i], "no verifier share taken");
            assertFalse(registry.nodeInfo(vs[i].node).paused, "seeded: not paused");
        }
    }

    function test_refund() public {
        bytes32 id = createJob(jobParams(1, 1, 3), FEE);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.DeadlineNotReached.selector, escrow.jobs(id).deadline));
        escrow.refund(id);
        vm.warp(block.timestamp + 2 days);
        uint256 b0 = creator.balance;
        escrow.refund(id);
        assertEq(creator.balance - b0, FEE);
        escrow.refund(id); // idempotent
    }

    function test_claimBeforeReleaseReverts() public {
        bytes32 id = createJob(jobParams(1, 1, 3), FEE);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.WrongStatus.selector, id, JobEscrowBase.Status.Open));
        escrow.claim(id, new JobEscrowBase.ResultLeaf[](0), new bytes32[][](0));
    }

    function test_moduleCannotBeCalledDirectly() public {
        JobEscrowSettlement m = JobEscrowSettlement(payable(escrow.settlementModule()));
        vm.expectRevert(JobEscrowSeeds.NotDelegated.selector);
        m.settle(bytes32("x"));
        vm.expectRevert(JobEscrowSeeds.NotDelegated.selector);
        m.commitSeed(bytes32("h"), 0);
        vm.expectRevert(JobEscrowSeeds.NotDelegated.selector);
        m.closeSeeds(bytes32("x"));
    }

    function test_onlyRegistryHooks() public {
        vm.expectRevert(JobEscrowBase.OnlyRegistry.selector);
        escrow.onNodeAvailable(address(1));
        vm.deal(address(this), 1 ether);
        (bool ok,) = address(escrow).call{value: 1}("");
        assertFalse(ok);
    }

    function test_constructorRejectsBadParams() public {
        JobEscrowBase.Params memory p = escrowParams();
        p.drawPenaltyBps = 10001;
        vm.expectRevert(JobEscrowBase.InvalidParams.selector);
        new JobEscrow(registry, p);
        p = escrowParams();
        p.treasury = address(0);
        JobEscrow e = new JobEscrow(registry, p);
        assertEq(e.treasury(), address(this));
    }

    function test_aSubmissionLeavesTheLastModel() public {
        // only a revealed verification sets it (attacks/ModelMultiplier.t.sol)
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
        p.modelId = MODEL_X;
        bytes32 id = createJob(p, FEE);
        submit(id, sub, bytes32("r"));
        assertEq(registry.nodeInfo(sub).lastModel, bytes32(0));
    }


    function test_gasCreateJobAndSettle() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(4, 8, 3);
        vm.prank(creator);
        uint256 g0 = gasleft();
        bytes32 id = escrow.createJob{value: FEE}(p);
        uint256 gCreate = g0 - gasleft();
        Results memory r = honest(id, 4, 8);
        submit(id, sub, r.root);
        select(id);
        commitViews(id, views3(r, r, r), noBlame(3));
        prove(id, r);
        revealViews(id, r, views3(r, r, r), noBlame(3));
        g0 = gasleft();
        escrow.settle(id);
        uint256 gSettle = g0 - gasleft();
        assertLe(gCreate, 200_000, "createJob over budget");
        assertLe(gSettle, 250_000, "settle over budget");
    }
}
