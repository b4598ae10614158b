// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Fixture} from "./utils/Fixture.sol";
import {NodeRegistry} from "../src/NodeRegistry.sol";
import {JobEscrow} from "../src/JobEscrow.sol";
import {Encoding} from "../src/libraries/Encoding.sol";

contract JobEscrowTest is Fixture {
    address sub;
    address payee1 = address(0xA11CE);
    address payee2 = address(0xB0B);
    uint256 constant FEE = 10 ether;

    function setUp() public {
        deploy();
        sub = registerNode(0, GPU_A, 24, 2 ether);
        registerMany(1, 5, GPU_A, 24, 2 ether);
    }

    function payoutTree() internal view returns (bytes32[] memory leaves, bytes32 root) {
        leaves = new bytes32[](2);
        leaves[0] = Encoding.payoutLeaf(payee1, 5 ether);
        leaves[1] = Encoding.payoutLeaf(payee2, 3 ether);
        root = merkleRoot(leaves);
    }

    /// create -> submit -> select; returns jobId and results
    function toSelected(uint32 macroJobs, uint32 per) internal returns (bytes32 id, Results memory r) {
        JobEscrow.CreateJobParams memory p = jobParams(macroJobs, per, 3);
        id = createJob(p, FEE);
        r = buildResults(id, p.seed, macroJobs, per, "honest");
        (, bytes32 proot) = payoutTree();
        submit(id, sub, r.root, proot);
        select(id);
    }

    function toReleased() internal returns (bytes32 id) {
        Results memory r;
        (id, r) = toSelected(2, 2);
        (JobEscrow.ResultLeaf[] memory leaves, bytes32[][] memory proofs, bytes32 vh) = sample(id, r, 2, 2);
        commitAll(id, same(vh, 3));
        escrow.proveSample(id, leaves, proofs);
        revealAll(id, same(vh, 3));
        escrow.settle(id);
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrow.Status.Released));
    }

    // ------------------------------------------------ createJob

    function test_createJob() public {
        JobEscrow.CreateJobParams memory p = jobParams(4, 8, 3);
        bytes32 expected = keccak256(abi.encode(creator, p.specCid, p.nonce));
        vm.expectEmit(true, true, false, true);
        emit JobEscrow.JobCreated(expected, creator, p.specCid, FEE, p.jobRoot, p.deadline, FEE / (30 + 32 * 10));
        bytes32 id = createJob(p, FEE);
        assertEq(id, expected);
        assertEq(id, escrow.computeJobId(creator, p.specCid, p.nonce));
        JobEscrow.Job memory j = escrow.jobs(id);
        assertEq(uint256(j.status), uint256(JobEscrow.Status.Open));
        assertEq(uint256(j.fee), FEE);
        assertEq(j.jobRoot, p.jobRoot);
        assertEq(uint256(j.k), 3);
        assertEq(escrow.taskValue(id), FEE / 350);
        assertEq(address(escrow).balance, FEE);
    }

    function test_createJobErrors() public {
        JobEscrow.CreateJobParams memory p = jobParams(1, 1, 3);
        vm.startPrank(creator);
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.UnderfundedJob.selector, 999, 1000));
        escrow.createJob{value: 999}(p);
        p.specCid = "";
        vm.expectRevert(JobEscrow.EmptySpecCid.selector);
        escrow.createJob{value: FEE}(p);
        p = jobParams(1, 1, 3);
        p.jobRoot = bytes32(0);
        vm.expectRevert(JobEscrow.EmptyRoot.selector);
        escrow.createJob{value: FEE}(p);
        p = jobParams(0, 1, 3);
        vm.expectRevert(JobEscrow.InvalidSlicing.selector);
        escrow.createJob{value: FEE}(p);
        p = jobParams(1, 1, 16);
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.InvalidVerifierCount.selector, 16, 15));
        escrow.createJob{value: FEE}(p);
        p = jobParams(1, 1, 3);
        p.deadline = uint40(block.timestamp);
        vm.expectRevert(JobEscrow.InvalidDeadline.selector);
        escrow.createJob{value: FEE}(p);
        p = jobParams(1, 1, 3);
        escrow.createJob{value: FEE}(p);
        bytes32 id = keccak256(abi.encode(creator, p.specCid, p.nonce));
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.JobExists.selector, id));
        escrow.createJob{value: FEE}(p);
        vm.stopPrank();
    }

    // ------------------------------------------------ submit

    function test_submitErrors() public {
        bytes32 id = createJob(jobParams(1, 1, 3), FEE);
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.NotActiveNode.selector, address(this)));
        escrow.submitResults(id, bytes32("r"), bytes32("p"), "m");
        vm.prank(sub);
        vm.expectRevert(JobEscrow.EmptyRoot.selector);
        escrow.submitResults(id, bytes32(0), bytes32("p"), "m");
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.UnknownJob.selector, bytes32("nope")));
        escrow.submitResults(bytes32("nope"), bytes32("r"), bytes32("p"), "m");
        submit(id, sub, bytes32("r"), bytes32("p"));
        vm.prank(sub);
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.WrongStatus.selector, id, JobEscrow.Status.Submitted));
        escrow.submitResults(id, bytes32("r"), bytes32("p"), "m");
        bytes32 id2 = createJob(jobParams(1, 1, 3), FEE);
        vm.warp(block.timestamp + 2 days);
        vm.prank(sub);
        vm.expectRevert(JobEscrow.DeadlinePassed.selector);
        escrow.submitResults(id2, bytes32("r"), bytes32("p"), "m");
    }

    // ------------------------------------------------ selectVerifiers

    function test_selectVerifiers() public {
        bytes32 id = createJob(jobParams(1, 1, 3), FEE);
        submit(id, sub, bytes32("r"), bytes32("p"));
        vm.roll(block.number + 1);
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.TooEarly.selector, block.number + 1));
        escrow.selectVerifiers(id);
        vm.roll(block.number + 1);
        escrow.selectVerifiers(id);
        JobEscrow.Verifier[] memory vs = escrow.verifiersOf(id);
        assertEq(vs.length, 3);
        for (uint256 i; i < 3; ++i) {
            assertTrue(vs[i].node != sub, "submitter drawn");
            assertTrue(registry.nodeInfo(vs[i].node).busy);
        }
        JobEscrow.Job memory j = escrow.jobs(id);
        assertEq(j.sampleEntropy, blockhash(j.submitBlock + 1));
        assertEq(uint256(j.commitDeadline), block.number + 20);
        escrow.selectVerifiers(id); // idempotent
        assertEq(escrow.verifiersOf(id).length, 3);
    }

    function test_selectVerifiersReanchorsOldEntropy() public {
        bytes32 id = createJob(jobParams(1, 1, 3), FEE);
        submit(id, sub, bytes32("r"), bytes32("p"));
        vm.roll(block.number + 300);
        escrow.selectVerifiers(id);
        assertEq(escrow.verifiersOf(id).length, 0);
        assertEq(uint256(escrow.jobs(id).submitBlock), block.number);
        select(id);
        assertEq(escrow.verifiersOf(id).length, 3);
    }

    function test_selectVerifiersWrongStatus() public {
        bytes32 id = createJob(jobParams(1, 1, 3), FEE);
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.WrongStatus.selector, id, JobEscrow.Status.Open));
        escrow.selectVerifiers(id);
    }

    function test_queueWhenNotEnoughNodesThenDispatchOnRegister() public {
        JobEscrow.CreateJobParams memory p = jobParams(1, 1, 3);
        p.minVramGb = 48;
        bytes32 id = createJob(p, FEE);
        registerNode(50, GPU_B, 80, 2 ether);
        submit(id, sub, bytes32("r"), bytes32("p"));
        select(id);
        assertEq(escrow.verifiersOf(id).length, 1);
        assertTrue(escrow.isQueued(id));
        assertEq(escrow.queueSize(), 1);
        registerNode(51, GPU_B, 80, 2 ether); // dispatch on register
        assertEq(escrow.verifiersOf(id).length, 2);
        registerNode(52, GPU_A, 8, 2 ether); // too little VRAM: not dispatched
        assertEq(escrow.verifiersOf(id).length, 2);
        registerNode(53, GPU_A, 48, 2 ether);
        assertEq(escrow.verifiersOf(id).length, 3);
        assertFalse(escrow.isQueued(id));
        assertTrue(escrow.jobs(id).commitDeadline != 0);
    }

    function test_queueEvictsLowestValueAndRefunds() public {
        // min size 16, nobody can verify minVram 1000 jobs -> queue fills; the 17th evicts the lowest
        bytes32[] memory ids = new bytes32[](17);
        for (uint256 i; i < 17; ++i) {
            JobEscrow.CreateJobParams memory p = jobParams(1, 1, 3);
            p.minVramGb = 1000;
            ids[i] = createJob(p, i == 3 ? 2000 : 1 ether + i);
            submit(ids[i], sub, bytes32("r"), bytes32("p"));
        }
        vm.roll(block.number + 2);
        for (uint256 i; i < 16; ++i) escrow.selectVerifiers(ids[i]);
        assertEq(escrow.queueSize(), 16);
        assertEq(escrow.lowestQueued(), ids[3]);
        vm.expectEmit(true, true, false, true);
        emit JobEscrow.TaskAborted(ids[3], creator, 2000);
        escrow.selectVerifiers(ids[16]);
        assertEq(escrow.queueSize(), 16);
        assertEq(uint256(escrow.statusOf(ids[3])), uint256(JobEscrow.Status.Aborted));
        assertEq(escrow.credits(creator), 2000);
        uint256 b0 = creator.balance;
        vm.prank(creator);
        escrow.withdrawCredit();
        assertEq(creator.balance - b0, 2000);
    }

    // ------------------------------------------------ commit / reveal / prove / settle

    function test_fullLifecycleReleasedAndClaims() public {
        bytes32 id = toReleased();
        JobEscrow.Verifier[] memory vs = escrow.verifiersOf(id);
        // verifiers paid by reveal order: 1000/500/200 of the 20% pool
        uint256 pool = FEE * 2000 / 10000;
        assertEq(escrow.credits(vs[0].node), pool * 1000 / 1700);
        assertEq(escrow.credits(vs[1].node), pool * 500 / 1700);
        assertEq(escrow.credits(vs[2].node), pool * 200 / 1700);
        for (uint256 i; i < 3; ++i) {
            assertFalse(registry.nodeInfo(vs[i].node).busy);
            assertEq(registry.scoreOf(vs[i].node), i == 0 ? 2000 : i == 1 ? 1000 : 400);
        }
        (bytes32[] memory leaves,) = payoutTree();
        escrow.claim(id, payee1, 5 ether, merkleProof(leaves, 0));
        assertEq(payee1.balance, 5 ether);
        vm.expectRevert(JobEscrow.AlreadyClaimed.selector);
        escrow.claim(id, payee1, 5 ether, merkleProof(leaves, 0));
        vm.expectRevert(JobEscrow.InvalidProof.selector);
        escrow.claim(id, payee2, 4 ether, merkleProof(leaves, 1));
        escrow.claim(id, payee2, 3 ether, merkleProof(leaves, 1));
        assertEq(payee2.balance, 3 ether);
        escrow.settle(id); // idempotent
        vm.prank(vs[0].node);
        escrow.withdrawCredit();
        vm.prank(vs[0].node);
        vm.expectRevert(JobEscrow.NothingToWithdraw.selector);
        escrow.withdrawCredit();
    }

    function test_claimPoolCap() public {
        JobEscrow.CreateJobParams memory p = jobParams(1, 2, 3);
        bytes32 id = createJob(p, FEE);
        Results memory r = buildResults(id, p.seed, 1, 2, "honest");
        bytes32[] memory leaves = new bytes32[](2);
        leaves[0] = Encoding.payoutLeaf(payee1, 7 ether);
        leaves[1] = Encoding.payoutLeaf(payee2, 7 ether);
        submit(id, sub, r.root, merkleRoot(leaves));
        select(id);
        (JobEscrow.ResultLeaf[] memory sl, bytes32[][] memory proofs, bytes32 vh) = sample(id, r, 1, 2);
        commitAll(id, same(vh, 3));
        escrow.proveSample(id, sl, proofs);
        revealAll(id, same(vh, 3));
        escrow.settle(id);
        escrow.claim(id, payee1, 7 ether, merkleProof(leaves, 0));
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.PoolExceeded.selector, 1 ether));
        escrow.claim(id, payee2, 7 ether, merkleProof(leaves, 1));
    }

    function test_commitRevealErrors() public {
        (bytes32 id, Results memory r) = toSelected(1, 2);
        (,, bytes32 vh) = sample(id, r, 1, 2);
        JobEscrow.Verifier[] memory vs = escrow.verifiersOf(id);
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.NotVerifier.selector, address(this)));
        escrow.commitVerification(id, bytes32("c"));
        vm.startPrank(vs[0].node);
        vm.expectRevert(JobEscrow.EmptyCommitment.selector);
        escrow.commitVerification(id, bytes32(0));
        vm.expectRevert(JobEscrow.NotCommitted.selector);
        escrow.revealVerification(id, vh, bytes32(uint256(1)));
        escrow.commitVerification(id, Encoding.commitment(vh, bytes32(uint256(1)), vs[0].node));
        vm.expectRevert(JobEscrow.AlreadyCommitted.selector);
        escrow.commitVerification(id, bytes32("c"));
        vm.expectRevert(JobEscrow.RevealNotOpen.selector);
        escrow.revealVerification(id, vh, bytes32(uint256(1)));
        vm.stopPrank();
        vm.expectRevert(JobEscrow.SampleNotOpen.selector);
        escrow.proveSample(id, new JobEscrow.ResultLeaf[](1), new bytes32[][](1));
        bytes32 other = createAndSubmitOnly();
        vm.expectRevert(JobEscrow.VerifiersIncomplete.selector);
        escrow.settle(other);
        vm.roll(block.number + 21);
        vm.prank(vs[1].node);
        vm.expectRevert(JobEscrow.CommitWindowClosed.selector);
        escrow.commitVerification(id, bytes32("c"));
        vm.startPrank(vs[0].node);
        vm.expectRevert(JobEscrow.RevealMismatch.selector);
        escrow.revealVerification(id, vh, bytes32(uint256(2)));
        escrow.revealVerification(id, vh, bytes32(uint256(1)));
        vm.expectRevert(JobEscrow.AlreadyRevealed.selector);
        escrow.revealVerification(id, vh, bytes32(uint256(1)));
        vm.stopPrank();
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.SettleTooEarly.selector, escrow.jobs(id).revealDeadline));
        escrow.settle(id);
    }

    function createAndSubmitOnly() internal returns (bytes32 id) {
        id = createJob(jobParams(1, 1, 3), FEE);
        submit(id, sub, bytes32("r"), bytes32("p"));
    }

    function test_proveSampleErrors() public {
        (bytes32 id, Results memory r) = toSelected(2, 2);
        (JobEscrow.ResultLeaf[] memory leaves, bytes32[][] memory proofs, bytes32 vh) = sample(id, r, 2, 2);
        commitAll(id, same(vh, 3));
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.WrongSampleLength.selector, 1, 2));
        escrow.proveSample(id, new JobEscrow.ResultLeaf[](1), new bytes32[][](1));
        uint256 idx = leaves[1].index;
        leaves[1].index = (idx + 1) % 2;
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.WrongSampleLeaf.selector, 1));
        escrow.proveSample(id, leaves, proofs);
        leaves[1].index = idx;
        bytes32 out = leaves[1].outputHash;
        leaves[1].outputHash = bytes32("forged");
        vm.expectRevert(JobEscrow.InvalidProof.selector);
        escrow.proveSample(id, leaves, proofs);
        leaves[1].outputHash = out;
        escrow.proveSample(id, leaves, proofs);
        assertEq(escrow.jobs(id).claimedHash, vh);
        vm.expectRevert(JobEscrow.AlreadyProven.selector);
        escrow.proveSample(id, leaves, proofs);
    }

    function test_rejectedSlashesAndReopens() public {
        (bytes32 id, Results memory r) = toSelected(2, 2);
        (JobEscrow.ResultLeaf[] memory leaves, bytes32[][] memory proofs, bytes32 vh) = sample(id, r, 2, 2);
        bytes32 honest = keccak256("the real outputs");
        assertTrue(honest != vh);
        commitAll(id, same(honest, 3));
        escrow.proveSample(id, leaves, proofs);
        revealAll(id, same(honest, 3));
        uint256 stake0 = registry.nodeInfo(sub).stake;
        escrow.settle(id);
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrow.Status.Open));
        assertEq(registry.nodeInfo(sub).stake, stake0 / 2);
        JobEscrow.Verifier[] memory vs = escrow.verifiersOf(id);
        assertEq(vs.length, 0);
        // resubmission by an honest peer works
        address other = nodeAddr(1);
        submit(id, other, r.root, bytes32("p"));
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrow.Status.Submitted));
    }

    function test_unprovenSampleIsRejected() public {
        (bytes32 id, Results memory r) = toSelected(1, 1);
        (,, bytes32 vh) = sample(id, r, 1, 1);
        commitAll(id, same(vh, 3));
        revealAll(id, same(vh, 3));
        vm.roll(block.number + 41);
        escrow.settle(id);
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrow.Status.Open));
        // all three revealed honestly and share the slash (1 ether of 2)
        uint256 paid;
        for (uint256 i = 1; i <= 5; ++i) paid += escrow.credits(nodeAddr(i));
        assertEq(paid + escrow.credits(creator), 1 ether); // rounding dust goes to the creator
        assertTrue(paid > 1 ether - 10);
    }

    function test_timeoutsDoNotBlockSettlement() public {
        (bytes32 id, Results memory r) = toSelected(1, 2);
        (JobEscrow.ResultLeaf[] memory leaves, bytes32[][] memory proofs, bytes32 vh) = sample(id, r, 1, 2);
        JobEscrow.Verifier[] memory vs = escrow.verifiersOf(id);
        for (uint256 i; i < 2; ++i) {
            vm.prank(vs[i].node);
            escrow.commitVerification(id, Encoding.commitment(vh, bytes32(i + 1), vs[i].node));
        }
        vm.roll(block.number + 21);
        escrow.proveSample(id, leaves, proofs);
        vm.prank(vs[0].node);
        escrow.revealVerification(id, vh, bytes32(uint256(1)));
        vm.roll(block.number + 21);
        vm.prank(vs[1].node);
        vm.expectRevert(JobEscrow.RevealWindowClosed.selector);
        escrow.revealVerification(id, vh, bytes32(uint256(2)));
        escrow.settle(id);
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrow.Status.Released));
        (uint256 s1,,, uint256 t1,) = registry.qosState(vs[1].node);
        (uint256 s2,,, uint256 t2,) = registry.qosState(vs[2].node);
        assertEq(s1, 500); // committed 2nd, reveal timed out
        assertEq(t1, 1);
        assertEq(s2, 0);
        assertEq(t2, 2);
    }

    function test_noRevealsRestartsRound() public {
        (bytes32 id,) = toSelected(1, 1);
        // the silent verifiers score 0 (weight 0: W = S*Q/(S+Q)); three fresh nodes take the next round
        registerMany(20, 3, GPU_A, 24, 2 ether);
        vm.roll(block.number + 41);
        escrow.settle(id);
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrow.Status.Submitted));
        assertEq(escrow.verifiersOf(id).length, 0);
        select(id);
        assertEq(escrow.verifiersOf(id).length, 3);
    }

    function test_refund() public {
        bytes32 id = createJob(jobParams(1, 1, 3), FEE);
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.DeadlineNotReached.selector, block.timestamp + 1 days));
        escrow.refund(id);
        vm.warp(block.timestamp + 1 days + 1);
        uint256 b0 = creator.balance;
        escrow.refund(id);
        assertEq(creator.balance - b0, FEE);
        escrow.refund(id); // idempotent
        assertEq(creator.balance - b0, FEE);
        assertEq(address(escrow).balance, 0);
    }

    function test_refundReleasesVerifiers() public {
        (bytes32 id,) = toSelected(1, 1);
        vm.warp(block.timestamp + 2 days);
        escrow.refund(id);
        assertEq(registry.totalWeight() > 0, true);
        JobEscrow.Verifier[] memory vs = escrow.verifiersOf(id);
        for (uint256 i; i < vs.length; ++i) assertFalse(registry.nodeInfo(vs[i].node).busy);
    }

    function test_refundAfterReleaseReverts() public {
        bytes32 id = toReleased();
        vm.warp(block.timestamp + 2 days);
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.WrongStatus.selector, id, JobEscrow.Status.Released));
        escrow.refund(id);
    }

    function test_claimBeforeReleaseReverts() public {
        bytes32 id = createAndSubmitOnly();
        vm.expectRevert(abi.encodeWithSelector(JobEscrow.WrongStatus.selector, id, JobEscrow.Status.Submitted));
        escrow.claim(id, payee1, 1, new bytes32[](0));
    }

    function test_onlyRegistryHooks() public {
        vm.expectRevert(JobEscrow.OnlyRegistry.selector);
        escrow.onNodeAvailable(address(1));
        vm.deal(address(this), 1 ether);
        (bool ok,) = address(escrow).call{value: 1}("");
        assertFalse(ok);
    }

    function test_constructorRejectsBadParams() public {
        JobEscrow.Params memory p = escrowParams();
        p.processorBps = 10001;
        vm.expectRevert(JobEscrow.InvalidParams.selector);
        new JobEscrow(registry, p);
    }

    function test_modelIdUpdatesLastModel() public {
        JobEscrow.CreateJobParams memory p = jobParams(1, 1, 3);
        p.modelId = MODEL_X;
        bytes32 id = createJob(p, FEE);
        submit(id, sub, bytes32("r"), bytes32("p"));
        assertEq(registry.nodeInfo(sub).lastModel, MODEL_X);
    }

    function test_identicalHardwareDrawsOneGroup() public {
        registerMany(10, 3, GPU_B, 80, 2 ether);
        JobEscrow.CreateJobParams memory p = jobParams(1, 1, 3);
        p.identicalHardware = true;
        bytes32 id = createJob(p, FEE);
        submit(id, sub, bytes32("r"), bytes32("p"));
        select(id);
        JobEscrow.Verifier[] memory vs = escrow.verifiersOf(id);
        assertEq(vs.length, 3);
        (bytes32 g0,) = registry.nodeHardware(vs[0].node);
        for (uint256 i = 1; i < 3; ++i) {
            (bytes32 g,) = registry.nodeHardware(vs[i].node);
            assertEq(g, g0);
        }
        assertEq(escrow.jobs(id).chosenModel, g0);
    }

    function test_gasCreateJobAndSettle() public {
        JobEscrow.CreateJobParams memory p = jobParams(2, 2, 3);
        vm.prank(creator);
        uint256 g0 = gasleft();
        bytes32 id = escrow.createJob{value: FEE}(p);
        uint256 gCreate = g0 - gasleft();
        Results memory r = buildResults(id, p.seed, 2, 2, "honest");
        submit(id, sub, r.root, bytes32("p"));
        select(id);
        (JobEscrow.ResultLeaf[] memory leaves, bytes32[][] memory proofs, bytes32 vh) = sample(id, r, 2, 2);
        commitAll(id, same(vh, 3));
        escrow.proveSample(id, leaves, proofs);
        revealAll(id, same(vh, 3));
        g0 = gasleft();
        escrow.settle(id);
        uint256 gSettle = g0 - gasleft();
        emit log_named_uint("createJob gas", gCreate);
        emit log_named_uint("settle gas", gSettle);
        assertLe(gCreate, 200_000, "createJob over budget");
        assertLe(gSettle, 250_000, "settle over budget");
    }

    event log_named_uint(string key, uint256 val);
}
