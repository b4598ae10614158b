// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./attacks/AttackBase.sol";
import {JobEscrowBase} from "../src/escrow/JobEscrowBase.sol";
import {JobEscrowPayees} from "../src/escrow/JobEscrowPayees.sol";
import {NodeRegistryBase} from "../src/registry/NodeRegistryBase.sol";
import {console} from "./utils/Test.sol";

/// The bonds of the payees a submission names (docs/settlement.md, Defences 28): locked at `submitResults`, given
/// back on every path that ends the round, counted once per payee.
contract PayeeBondsTest is AttackBase {
    address internal p2;
    address internal p3;

    function setUp() public override {
        super.setUp();
        p2 = nodeAddr(2);
        p3 = nodeAddr(3);
    }

    function _named() internal view returns (address[] memory l) {
        l = new address[](4);
        l[0] = p2;
        l[1] = p3;
        l[2] = p2; // a repeat counts once
        l[3] = finalizer; // the submitter's own bond already covers its leaves
    }

    function _submitted(uint40 deadline) internal returns (bytes32 id, Results memory r) {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 4, 3);
        p.samples = 4;
        p.deadline = deadline;
        id = createJob(p, FEE);
        r = buildResults(id, 1, 4, "honest", two(p2, p3));
        submitNaming(id, finalizer, r.root, _named());
        assertEq(registry.lockedStake(p2), 2 * FEE, "p2's bond, once");
        assertEq(registry.lockedStake(p3), 2 * FEE, "p3's bond");
        assertEq(registry.lockedStake(finalizer), 2 * FEE, "the submitter's bond, once");
    }

    /// @dev The attacker submits job `id` (1 x 4 MicroJobs, all processed by `payee`) with its first output altered,
    ///      naming `payee` (which joins the current round): the honest results and the sent ones.
    function _alteredNaming(bytes32 id, address payee) internal returns (Results memory truth, Results memory sent) {
        truth = buildResults(id, 1, 4, "honest", one(payee));
        sent = copyResults(truth);
        sent.outputs[0] = keccak256("altered");
        _rebuild(id, 4, sent);
        submitNaming(id, attacker, sent.root, one(payee));
    }

    function _allFree() internal view {
        assertEq(registry.lockedStake(p2), 0, "p2 free");
        assertEq(registry.lockedStake(p3), 0, "p3 free");
        assertEq(registry.lockedStake(finalizer), 0, "submitter free");
    }

    /// Released: every bond is given back, and the payees claim.
    function test_releaseUnlocksThePayees() public {
        (bytes32 id, Results memory r) = _submitted(uint40(block.timestamp + 1 days));
        verifyRound(id, r, views3(r, r, r), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Released));
        _allFree();
        uint256 b0 = p2.balance;
        claimAll(id, r, 4);
        assertEq(p2.balance - b0, 2 * escrow.processorPool(id) / 4, "a named payee is paid its leaves");
    }

    /// Rejected for the submitter's fault: the named payee's bond of that job is given back (its bond for another
    /// job stays locked), and the payee is not blamed for the submitter's change.
    function test_rejectionUnlocksThePayees() public {
        vm.deal(p2, 2 ether);
        vm.prank(p2);
        registry.addStake{value: 2 ether}();
        _submitted(uint40(block.timestamp + 1 days));
        bytes32 id = newJob(1, 4, 4);
        (Results memory truth, Results memory sent) = _alteredNaming(id, p2);
        assertEq(registry.lockedStake(p2), 4 * FEE, "p2 named by two submissions");
        uint256 s2 = stakeOf(p2);
        verifyRound(id, sent, views3(truth, truth, truth), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open), "rejected");
        assertEq(registry.lockedStake(p2), 2 * FEE, "only the rejected job's bond is given back");
        assertTrue(stakeOf(p2) >= s2, "the named payee is not blamed for the submitter's change");
        assertEq(registry.lockedStake(attacker), 0);
    }

    /// Reopened at the deadline with verifiers still missing, then refunded: the bonds are given back.
    function test_reopenUnlocksThePayees() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 2, 3);
        p.minVramGb = 64; // no verifier qualifies
        bytes32 id = createJob(p, FEE);
        submitNaming(id, finalizer, bytes32("r"), two(p2, p3));
        select(id);
        vm.warp(block.timestamp + 2 days);
        escrow.settle(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Open));
        _allFree();
    }

    /// Refunded while the verification waited in the queue past the deadline: the bonds are given back.
    function test_refundUnlocksThePayees() public {
        for (uint256 i = 4; i < 7; ++i) { vm.prank(nodeAddr(i)); registry.pause(); }
        vm.prank(attacker);
        registry.pause();
        (bytes32 id,) = _submitted(uint40(block.timestamp + 1 days));
        vm.roll(block.number + 2);
        escrow.selectVerifiers(id);
        assertTrue(escrow.jobs(id).assigned < 3, "the draw waits");
        vm.warp(uint256(escrow.jobs(id).deadline) + 1);
        escrow.refund(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Refunded));
        _allFree();
    }

    /// A payee that is not a node, or lacks free stake for the bond, cannot be named: the submission reverts and
    /// nothing is locked.
    function test_anUnbondablePayeeRevertsTheSubmission() public {
        bytes32 id = newJob(1, 4, 4);
        Results memory r = buildResults(id, 1, 4, "honest", one(procA));
        join(id, procA);
        commitFirst(id, finalizer, r.root);
        vm.prank(finalizer);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.NotRegistered.selector, procA));
        escrow.submitResults(id, r.root, "bafy-manifest", one(procA));
        address poor = registerNode(30, GPU_A, 24, 1 ether);
        join(id, poor);
        vm.prank(finalizer);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.InsufficientFreeStake.selector, 1 ether, 2 * FEE));
        escrow.submitResults(id, r.root, "bafy-manifest", one(poor));
        assertEq(registry.lockedStake(finalizer), 0);
        assertEq(status(id), uint256(JobEscrowBase.Status.Open));
    }

    /// More payees than MAX_PAYEES are refused.
    function test_tooManyPayees() public {
        bytes32 id = newJob(1, 4, 4);
        Results memory r = honestResults(id, 1, 4);
        commitFirst(id, finalizer, r.root);
        uint256 max = escrow.MAX_PAYEES();
        vm.prank(finalizer);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowPayees.TooManyPayees.selector, max + 1, max));
        escrow.submitResults(id, r.root, "bafy-manifest", new address[](max + 1));
    }

    /// The gas a named payee adds to the submission and to the release (printed for docs/settlement.md).
    function test_gasPerNamedPayee() public {
        uint256 n = 16;
        address[] memory many = new address[](n);
        for (uint256 i; i < n; ++i) many[i] = registerNode(100 + i, GPU_A, 24, 3 ether);
        uint256 gasJoin;
        uint256[2] memory gasSubmit;
        uint256[2] memory gasSettle;
        for (uint256 c; c < 2; ++c) {
            uint256 snap = vm.snapshotState();
            address[] memory named = c == 0 ? new address[](0) : many;
            bytes32 id = newJob(1, 16, 4);
            Results memory r = buildResults(id, 1, 16, "honest", many);
            for (uint256 i; i < n; ++i) {
                vm.prank(many[i]);
                uint256 j0 = gasleft();
                escrow.joinJob(id);
                gasJoin = j0 - gasleft();
            }
            commitFirst(id, finalizer, r.root);
            vm.prank(finalizer);
            uint256 g0 = gasleft();
            escrow.submitResults(id, r.root, "bafy-manifest", named);
            gasSubmit[c] = g0 - gasleft();
            select(id);
            commitViews(id, views3(r, r, r), noBlame(3));
            prove(id, r);
            vm.roll(block.number + 1);
            revealViews(id, r, views3(r, r, r), noBlame(3));
            g0 = gasleft();
            escrow.settle(id);
            gasSettle[c] = g0 - gasleft();
            assertEq(status(id), uint256(JobEscrowBase.Status.Released));
            vm.revertToState(snap);
        }
        console.log("joinJob gas (a payee's, once per round of a job)", gasJoin);
        console.log("submitResults gas, no payee named", gasSubmit[0]);
        console.log("submitResults gas per named payee", (gasSubmit[1] - gasSubmit[0]) / n);
        console.log("settle (release) gas per named payee", (gasSettle[1] - gasSettle[0]) / n);
        assertTrue(gasSubmit[1] > gasSubmit[0], "naming costs gas");
    }

    /// A submitter cannot lock the stake of nodes that did not join its job: naming them reverts, and nothing is
    /// locked. (Without the rule, one submission of a job nobody could verify, its fee and bond given back at the
    /// deadline, held up to 256 nodes' stakes for 30 days for the price of its gas.)
    function test_aNodeThatDidNotJoinCannotBeNamed() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 2, 3);
        p.minVramGb = 64; // no verifier qualifies: the verification would wait until the deadline
        p.deadline = uint40(block.timestamp + 30 days);
        bytes32 id = createJob(p, FEE);
        commitFirst(id, attacker, bytes32("r"));
        vm.prank(attacker);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowPayees.PayeeNotJoined.selector, p2));
        escrow.submitResults(id, bytes32("r"), "bafy-manifest", two(p2, p3));
        join(id, p2);
        vm.prank(attacker);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowPayees.PayeeNotJoined.selector, p3));
        escrow.submitResults(id, bytes32("r"), "bafy-manifest", two(p2, p3));
        assertEq(registry.lockedStake(p2), 0, "nothing locked");
        assertEq(registry.lockedStake(attacker), 0);
        // joining is once per node and job: a second call changes nothing
        join(id, p2);
        assertTrue(escrow.joined(id, p2));
        assertTrue(!escrow.joined(id, p3));
    }

    /// A join is consent for one round (docs/settlement.md, Defences 28): a node that joined a round that was then
    /// rejected cannot be named by a submission of the next round until it joins that one, so a later round's
    /// submitter cannot lock the bond of a node that left the job. (Before, a join held for every round: the
    /// second submission below locked p2's bond.)
    function test_aJoinOfARejectedRoundIsNoConsentToTheNext() public {
        bytes32 id = newJob(1, 4, 4);
        (Results memory truth, Results memory sent) = _alteredNaming(id, p2); // p2 joins round 0 and is named
        assertTrue(escrow.joined(id, p2), "joined round 0");
        verifyRound(id, sent, views3(truth, truth, truth), noBlame(3));
        assertEq(escrow.jobs(id).rejections, 1, "round 0 rejected");
        assertTrue(!escrow.joined(id, p2), "round 1 not joined");
        commitFirst(id, finalizer, bytes32("r1"));
        vm.prank(finalizer);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowPayees.PayeeNotJoined.selector, p2));
        escrow.submitResults(id, bytes32("r1"), "bafy-manifest", one(p2));
        assertEq(registry.lockedStake(p2), 0, "nothing of p2 locked");
        // p2 works on round 1 too: its join of it lets the round's submission name it
        vm.recordLogs();
        join(id, p2);
        assertEq(vm.getRecordedLogs().length, 1, "one JobJoined for round 1");
        assertTrue(escrow.joined(id, p2), "joined round 1");
        vm.recordLogs();
        join(id, p2);
        assertEq(vm.getRecordedLogs().length, 0, "a second join of the round is a no-op");
        vm.prank(finalizer);
        escrow.submitResults(id, bytes32("r1"), "bafy-manifest", one(p2));
        assertEq(registry.lockedStake(p2), 2 * FEE, "named in round 1");
    }

    /// Whether a node joined a job that does not exist: no.
    function test_nobodyJoinedAnUnknownJob() public view {
        assertTrue(!escrow.joined(bytes32("nope"), p2));
    }

    /// Joining needs a job that exists.
    function test_joiningAnUnknownJobReverts() public {
        vm.prank(p2);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.UnknownJob.selector, bytes32("nope")));
        escrow.joinJob(bytes32("nope"));
    }
}
