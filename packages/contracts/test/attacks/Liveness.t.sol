// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// Attack 6: tiny jobs that freeze many verifiers, refunds ahead of a verification, unbounded proofs, funds stuck
/// in the escrow for good.
contract LivenessTest is AttackBase {
    /// A 1000-wei job with k = 15 is refused twice over: k is capped at 7 and each verifier's share must reach
    /// minFee.
    function test_cheapJobCannotFreezeManyVerifiers() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 15);
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.InvalidVerifierCount.selector, 15, 3, 7));
        escrow.createJob{value: 1000}(p);
        p = jobParams(1, 1, 7);
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.UnderfundedJob.selector, 1000, 8000));
        escrow.createJob{value: 1000}(p);
    }

    /// Far deadlines and proofs too big for a transaction are refused.
    function test_capsOnDeadlineAndSample() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
        p.deadline = uint40(block.timestamp + 365 days);
        vm.prank(creator);
        vm.expectRevert(JobEscrowBase.InvalidDeadline.selector);
        escrow.createJob{value: FEE}(p);
        p = jobParams(1000, 4, 3);
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.InvalidSamples.selector, 1, 4));
        escrow.createJob{value: FEE}(p);
    }

    /// After the deadline the creator cannot refund a job whose verification is under way; once settled
    /// (released) the refund is refused for good.
    function test_noRefundAheadOfVerification() public {
        bytes32 id = newJob(1, 2, 1);
        Results memory truth = honestResults(id, 1, 2);
        submit(id, finalizer, truth.root);
        select(id);
        commitViews(id, views3(truth, truth, truth), noBlame(3));
        prove(id, truth);
        revealViews(id, truth, views3(truth, truth, truth), noBlame(3));
        vm.warp(block.timestamp + 2 days);
        vm.expectRevert(JobEscrowBase.VerificationUnderway.selector);
        escrow.refund(id);
        escrow.settle(id);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.WrongStatus.selector, id, JobEscrowBase.Status.Released));
        escrow.refund(id);
    }

    /// Verifiers still missing at the deadline do not hold the fee hostage: settle reopens the job, then refund.
    function test_missingVerifiersAfterDeadlineReopen() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 2, 3);
        p.minVramGb = 64; // nobody qualifies
        bytes32 id = createJob(p, FEE);
        submit(id, finalizer, bytes32("r"));
        select(id);
        vm.expectRevert(JobEscrowBase.VerifiersIncomplete.selector);
        escrow.settle(id);
        vm.warp(block.timestamp + 2 days);
        escrow.settle(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Open));
        assertEq(registry.lockedStake(finalizer), 0);
        uint256 b0 = creator.balance;
        escrow.refund(id);
        assertEq(creator.balance - b0, FEE);
    }

    /// A submitted job waiting in the verification queue: every node but its submitter paused, its draw tried.
    function waitingJob() internal returns (bytes32 id) {
        for (uint256 i = 2; i < 7; ++i) { vm.prank(nodeAddr(i)); registry.pause(); }
        vm.prank(attacker);
        registry.pause();
        id = newJob(1, 2, 1);
        submit(id, finalizer, honestResults(id, 1, 2).root);
        vm.roll(block.number + 2);
        escrow.selectVerifiers(id);
        assertEq(escrow.jobs(id).assigned, 0);
    }

    /// A task waiting in the queue past its deadline is not drawn when nodes come back (it took the creator's refund
    /// away: VerificationUnderway, then a release after the deadline): it leaves the queue, and the creator refunds.
    function test_noDrawAfterDeadline() public {
        bytes32 id = waitingJob();
        vm.warp(uint256(escrow.jobs(id).deadline) + 1);
        // nodes coming back dispatch the queue: the expired task is passed over
        for (uint256 i = 2; i < 5; ++i) { vm.prank(nodeAddr(i)); registry.resume(); }
        assertEq(escrow.jobs(id).assigned, 0);
        // nor does anyone's draw start one
        vm.expectRevert(JobEscrowBase.DeadlinePassed.selector);
        escrow.selectVerifiers(id);
        uint256 b0 = creator.balance;
        escrow.refund(id);
        assertEq(creator.balance - b0, FEE);
        assertEq(registry.lockedStake(finalizer), 0);
    }

    /// Before its deadline a waiting task is still drawn by a node that comes back (control for the test above).
    function test_waitingTaskDrawnBeforeDeadline() public {
        bytes32 id = waitingJob();
        for (uint256 i = 2; i < 5; ++i) { vm.prank(nodeAddr(i)); registry.resume(); }
        assertEq(escrow.jobs(id).assigned, 3);
    }

    /// Unclaimed leaves do not stay in the escrow: after the claim window they are swept to the treasury, and
    /// late claims are refused.
    function test_sweepAfterClaimWindow() public {
        bytes32 id = newJob(1, 2, 1);
        Results memory truth = honestResults(id, 1, 2);
        submit(id, finalizer, truth.root);
        verifyRound(id, truth, views3(truth, truth, truth), noBlame(3));
        JobEscrowBase.ResultLeaf[] memory leaves = new JobEscrowBase.ResultLeaf[](1);
        bytes32[][] memory proofs = new bytes32[][](1);
        leaves[0] = leafAt(id, truth, 2, 0);
        proofs[0] = merkleProof(truth.leaves, 0);
        escrow.claim(id, leaves, proofs); // procA claims; procB never does
        uint256 until = escrow.jobs(id).releasedAt + 7 days;
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.ClaimWindowOpen.selector, until));
        escrow.sweep(id);
        vm.warp(until + 1);
        uint256 t0 = escrow.credits(treasury);
        escrow.sweep(id);
        assertEq(escrow.credits(treasury) - t0, escrow.processorPool(id) - escrow.processorPool(id) / 2);
        escrow.sweep(id); // idempotent
        leaves[0] = leafAt(id, truth, 2, 1);
        proofs[0] = merkleProof(truth.leaves, 1);
        vm.expectRevert(JobEscrowBase.ClaimWindowClosed.selector);
        escrow.claim(id, leaves, proofs);
    }
}
