// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {JobEscrowFixture} from "./utils/JobEscrowFixture.sol";
import {JobEscrowBase} from "../src/escrow/JobEscrowBase.sol";

/// The escrow's draw of verifiers: all k or none, the waiting queue (parking its lowest-value job when full) and
/// identical-hardware draws from one group.
contract JobEscrowQueueTest is JobEscrowFixture {
    // ------------------------------------------------ queue

    /// All k or none: a job that finds too few eligible idle nodes waits holding none of them (partial holds
    /// deadlocked a 4-node network with 10 jobs: every node held by a job waiting for another); the node that
    /// completes the set draws all k at once.
    function test_queueWhenNotEnoughNodesThenDispatchOnRegister() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
        p.minVramGb = 48;
        bytes32 id = createJob(p, FEE);
        address n50 = registerNode(50, GPU_B, 80, 2 ether);
        submit(id, sub, bytes32("r"));
        select(id);
        assertEq(escrow.verifiersOf(id).length, 0);
        assertTrue(escrow.isQueued(id));
        assertTrue(!registry.nodeInfo(n50).busy, "a waiting job holds no node");
        registerNode(51, GPU_B, 80, 2 ether);
        assertEq(escrow.verifiersOf(id).length, 0);
        registerNode(52, GPU_A, 8, 2 ether);
        assertEq(escrow.verifiersOf(id).length, 0);
        registerNode(53, GPU_A, 48, 2 ether);
        assertEq(escrow.verifiersOf(id).length, 3);
        assertFalse(escrow.isQueued(id));
        assertTrue(registry.nodeInfo(n50).busy);
    }

    /// Two jobs wait for three verifiers each with five eligible nodes: the draws never split the nodes between
    /// them (which would leave both waiting forever); one job gets its three, the other waits with two idle.
    function test_waitingJobsNeverSplitTheIdleNodes() public {
        // only these five have the 64 GB the jobs need
        address[5] memory big;
        for (uint256 i; i < 5; ++i) big[i] = registerNode(60 + i, GPU_B, 80, 2 ether);
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
        p.minVramGb = 64;
        bytes32 j1 = createJob(p, FEE);
        p.nonce += 1;
        bytes32 j2 = createJob(p, FEE);
        submit(j1, sub, bytes32("r1"));
        submit(j2, sub, bytes32("r2"));
        vm.roll(block.number + 2);
        escrow.selectVerifiers(j1);
        escrow.selectVerifiers(j2);
        assertEq(escrow.verifiersOf(j1).length, 3);
        assertEq(escrow.verifiersOf(j2).length, 0);
        assertTrue(escrow.isQueued(j2));
        uint256 busy;
        for (uint256 i; i < 5; ++i) if (registry.nodeInfo(big[i]).busy) ++busy;
        assertEq(busy, 3, "the other two nodes stay idle");
    }

    function test_queueFullParksTheLowestValueWhichKeepsItsWorkAndIsRefundedOnlyAfterTheDeadline() public {
        bytes32[] memory ids = new bytes32[](17);
        for (uint256 i; i < 17; ++i) {
            JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
            p.minVramGb = 1000;
            ids[i] = createJob(p, i == 3 ? 4000 : 1 ether + i);
            submit(ids[i], sub, bytes32("r"));
        }
        vm.roll(block.number + 2);
        for (uint256 i; i < 16; ++i) escrow.selectVerifiers(ids[i]);
        assertEq(escrow.queueSize(), 16);
        assertEq(escrow.lowestQueued(), ids[3]);
        uint256 lockedBefore = registry.lockedStake(sub);
        vm.expectEmit(true, false, false, false, address(escrow));
        emit JobEscrowBase.VerificationParked(ids[3], 0);
        escrow.selectVerifiers(ids[16]);
        // the evicted job is out of the queue but still Submitted: nobody is refunded, the processors' work stands
        assertEq(uint256(escrow.statusOf(ids[3])), uint256(JobEscrowBase.Status.Submitted));
        assertFalse(escrow.isQueued(ids[3]));
        assertTrue(escrow.isQueued(ids[16]));
        assertEq(escrow.queueSize(), 16);
        assertEq(escrow.credits(creator), 0);
        assertEq(registry.lockedStake(sub), lockedBefore);
        // its submitter draws again: still the lowest value, parked again (not queued ahead of a better one)
        escrow.selectVerifiers(ids[3]);
        assertFalse(escrow.isQueued(ids[3]));
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.DeadlineNotReached.selector, escrow.jobs(ids[3]).deadline));
        escrow.refund(ids[3]);
        // never verified by its deadline: the creator gets the fee back, the submitter its bond
        vm.warp(uint256(escrow.jobs(ids[3]).deadline) + 1);
        uint256 balance = creator.balance;
        escrow.refund(ids[3]);
        assertEq(creator.balance, balance + 4000);
        assertEq(uint256(escrow.statusOf(ids[3])), uint256(JobEscrowBase.Status.Refunded));
        assertEq(registry.lockedStake(sub), lockedBefore - 8000);
    }

    function test_identicalHardwareDrawsOneGroup() public {
        registerMany(10, 3, GPU_B, 80, 2 ether);
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
        p.identicalHardware = true;
        p.gpuModel = GPU_B;
        bytes32 id = createJob(p, FEE);
        submit(id, sub, bytes32("r"));
        select(id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        assertEq(vs.length, 3);
        (bytes32 g0,) = registry.nodeHardware(vs[0].node);
        for (uint256 i = 1; i < 3; ++i) {
            (bytes32 g,) = registry.nodeHardware(vs[i].node);
            assertEq(g, g0);
        }
    }
}
