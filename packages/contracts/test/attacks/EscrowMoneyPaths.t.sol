// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrow} from "../../src/JobEscrow.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";
import {JobEscrowPayees} from "../../src/escrow/JobEscrowPayees.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";
import {Encoding} from "../../src/libraries/Encoding.sol";

/// A payee that re-enters the escrow from its receive(): the same claim again, withdrawCredit, sweep, refund, settle.
/// It counts the re-entries that went through.
contract ReentrantPayee {
    JobEscrow public escrow;
    bytes32 public id;
    bytes public again;
    uint256 public entries;
    uint256 public successes;

    function arm(JobEscrow e, bytes32 jobId, bytes calldata claimCall) external {
        escrow = e;
        id = jobId;
        again = claimCall;
    }

    function drawLate(bytes32 jobId) external {
        escrow.selectVerifiers(jobId);
    }

    function withdraw() external {
        escrow.withdrawCredit();
    }

    receive() external payable {
        if (address(escrow) == address(0) || msg.sender != address(escrow)) return;
        entries++;
        if (entries > 1) return; // one round of re-entries is enough (and keeps the gas small)
        bool ok;
        (ok,) = address(escrow).call(again);
        if (ok) successes++;
        (ok,) = address(escrow).call(abi.encodeWithSelector(JobEscrow.withdrawCredit.selector));
        if (ok) successes++;
        (ok,) = address(escrow).call(abi.encodeWithSelector(JobEscrow.sweep.selector, id));
        if (ok) successes++;
        (ok,) = address(escrow).call(abi.encodeWithSelector(JobEscrow.refund.selector, id));
        if (ok) successes++;
        (ok,) = address(escrow).call(abi.encodeWithSelector(JobEscrow.settle.selector, id));
        if (ok) successes++;
    }
}

/// A job creator whose refund cannot be paid (its receive reverts).
contract RejectingCreator {
    function create(JobEscrow e, JobEscrowBase.CreateJobParams calldata p) external payable returns (bytes32) {
        return e.createJob{value: msg.value}(p);
    }

    receive() external payable {
        revert("no refunds here");
    }
}

/// Money paths of the escrow, tried by the ninth audit (2026-12-05): credits and withdrawals, claims, refunds, round
/// restarts and reopens, payees, seed and draw penalties. Each test tries to take money that is not the attacker's, or to make an honest
/// party lose money, and asserts the money ends where it should.
contract EscrowMoneyPathsTest is AttackBase {
    // ------------------------------------------------------------------ helpers

    function _everyone() internal view returns (address[] memory who) {
        who = new address[](9);
        for (uint256 i; i < 7; ++i) who[i] = nodeAddr(i);
        who[7] = treasury;
        who[8] = creator;
    }

    /// @dev Everybody in `extra` and the usual accounts withdraws its credits; returns the sum withdrawn.
    function _withdrawAll(address[] memory extra) internal returns (uint256 sum) {
        address[] memory who = _everyone();
        for (uint256 i; i < who.length + extra.length; ++i) {
            address a = i < who.length ? who[i] : extra[i - who.length];
            uint256 c = escrow.credits(a);
            if (c == 0) continue;
            sum += c;
            vm.prank(a);
            escrow.withdrawCredit();
        }
    }

    function _sumStakes(address[] memory extra) internal view returns (uint256 s) {
        for (uint256 i; i < 7; ++i) s += stakeOf(nodeAddr(i));
        for (uint256 i; i < extra.length; ++i) s += stakeOf(extra[i]);
    }

    function _leavesAt(bytes32 id, Results memory r, uint256 per, uint256[] memory pos)
        internal
        pure
        returns (JobEscrowBase.ResultLeaf[] memory leaves, bytes32[][] memory proofs)
    {
        leaves = new JobEscrowBase.ResultLeaf[](pos.length);
        proofs = new bytes32[][](pos.length);
        for (uint256 x; x < pos.length; ++x) {
            leaves[x] = leafAt(id, r, per, pos[x]);
            proofs[x] = merkleProof(r.leaves, pos[x]);
        }
    }

    function _claimPositions(bytes32 id, Results memory r, uint256 per, uint256[] memory pos) internal {
        (JobEscrowBase.ResultLeaf[] memory leaves, bytes32[][] memory proofs) = _leavesAt(id, r, per, pos);
        escrow.claim(id, leaves, proofs);
    }

    function _claimCall(bytes32 id, Results memory r, uint256 per, uint256[] memory pos)
        internal
        pure
        returns (bytes memory)
    {
        (JobEscrowBase.ResultLeaf[] memory leaves, bytes32[][] memory proofs) = _leavesAt(id, r, per, pos);
        return abi.encodeWithSelector(JobEscrow.claim.selector, id, leaves, proofs);
    }

    function _range(uint256 n) internal pure returns (uint256[] memory p) {
        p = new uint256[](n);
        for (uint256 i; i < n; ++i) p[i] = i;
    }

    /// @dev Pauses every node but those in `keep` (so a draw of k = 3 among the others fails).
    function _pauseAllBut(address keepA, address keepB) internal {
        for (uint256 i; i < 7; ++i) {
            address a = nodeAddr(i);
            if (a == keepA || a == keepB) continue;
            vm.prank(a);
            registry.pause();
        }
    }

    // ------------------------------------------------------------------ 1. re-entrant payee

    /// A payee contract re-enters the escrow from the ETH a claim sends it: the same claim again, withdrawCredit (it
    /// holds a draw bounty), sweep, refund and settle. Nothing re-enters; it is paid its leaves once and its credit
    /// once, and the escrow ends empty.
    function test_reentrantPayeeIsPaidItsLeavesOnce() public {
        ReentrantPayee pc = new ReentrantPayee();
        bytes32 id = newJob(2, 4, 1);
        Results memory r = buildResults(id, 2, 4, "honest", two(address(pc), procB));
        submit(id, finalizer, r.root);
        // the payee earns a credit: it draws the verifiers late (the submitter's bond pays the bounty)
        vm.roll(block.number + 1 + escrow.DRAW_GRACE_BLOCKS() + 1);
        pc.arm(escrow, id, "");
        pc.drawLate(id);
        uint256 bounty = escrow.credits(address(pc));
        assertGt(bounty, 0, "the late drawer holds a bounty");
        revealSeeds(id);
        judge(id, r, views3(r, r, r), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Released), "released");

        uint256 each = escrow.processorPool(id) / 8;
        uint256[] memory mine = new uint256[](4); // positions paying the contract: 0, 2, 4, 6
        for (uint256 i; i < 4; ++i) mine[i] = 2 * i;
        pc.arm(escrow, id, _claimCall(id, r, 4, mine));
        uint256 b0 = address(pc).balance;
        _claimPositions(id, r, 4, _range(8));
        assertEq(pc.entries(), 4, "one transfer per run of its leaves (they alternate with the other payee's)");
        assertEq(pc.successes(), 0, "no re-entry went through");
        assertEq(address(pc).balance - b0, 4 * each, "its four leaves, once");
        assertEq(procB.balance, 4 * each, "the other payee's four leaves");
        assertEq(escrow.credits(address(pc)), bounty, "its credit untouched");
        pc.withdraw();
        assertEq(address(pc).balance - b0, 4 * each + bounty, "its credit, once");
        vm.expectRevert(JobEscrowBase.NothingToWithdraw.selector);
        pc.withdraw();
        vm.warp(block.timestamp + 8 days);
        escrow.sweep(id);
        _withdrawAll(new address[](0));
        assertEq(address(escrow).balance, 0, "nothing left, nothing overpaid");
    }

    // ------------------------------------------------------------------ 2. a leaf paying the escrow

    /// A root whose leaf pays the escrow itself: its claim cannot be paid (the escrow takes ETH from the registry
    /// only), nobody else can take it, and after the claim window it is swept to the treasury with the dust.
    function test_aLeafPayingTheEscrowIsSweptNotStuck() public {
        bytes32 id = newJob(1, 4, 1);
        Results memory r = buildResults(id, 1, 4, "honest", two(address(escrow), procB));
        submit(id, finalizer, r.root);
        verifyRound(id, r, views3(r, r, r), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Released));
        uint256[] memory p0 = new uint256[](1);
        vm.expectRevert(JobEscrowBase.TransferFailed.selector);
        _claimPositions(id, r, 4, p0);
        uint256[] memory odd = new uint256[](2);
        odd[0] = 1;
        odd[1] = 3;
        _claimPositions(id, r, 4, odd);
        uint256 each = escrow.processorPool(id) / 4;
        assertEq(procB.balance, 2 * each);
        uint256 t0 = escrow.credits(treasury);
        vm.warp(block.timestamp + 8 days);
        escrow.sweep(id);
        assertEq(escrow.credits(treasury) - t0, escrow.processorPool(id) - 2 * each, "the escrow's leaves and dust swept");
        escrow.sweep(id); // idempotent
        _withdrawAll(new address[](0));
        assertEq(address(escrow).balance, 0, "nothing stuck");
    }

    // ------------------------------------------------------------------ 3. duplicate, zero and self payees

    /// @dev A node with 10 ETH more stake whose bond of another job (submitted by it) stays locked throughout.
    function _payeeWithAnotherBond() internal returns (address p, uint256 bond) {
        p = nodeAddr(2);
        vm.deal(p, 10 ether);
        vm.prank(p);
        registry.addStake{value: 10 ether}();
        bytes32 other = newJob(1, 4, 1);
        submit(other, p, buildResults(other, 1, 4, "honest", one(p)).root);
        bond = escrow.bondOf(other);
        assertEq(registry.lockedStake(p), bond);
    }

    /// A submission naming one payee twice and itself locks one bond each and frees them all when the round ends
    /// (released here; rejected below): a double lock would hold a payee's stake for good, a double unlock free
    /// another job's bond.
    function test_duplicatePayeesLockOnceAndUnlockFully() public {
        (address p, uint256 bond) = _payeeWithAnotherBond();

        bytes32 id = newJob(1, 4, 1);
        Results memory r = buildResults(id, 1, 4, "honest", two(p, procB));
        address[] memory named = new address[](3);
        named[0] = p;
        named[1] = p;
        named[2] = finalizer;
        submitNaming(id, finalizer, r.root, named);
        assertEq(registry.lockedStake(p), 2 * bond, "p: one bond for each job");
        assertEq(registry.lockedStake(finalizer), bond, "the submitter: its bond once");
        verifyRound(id, r, views3(r, r, r), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Released));
        assertEq(registry.lockedStake(p), bond, "p: the other job's bond still locked");
        assertEq(registry.lockedStake(finalizer), 0);
    }

    function test_duplicatePayeesUnlockOnceOnRejection() public {
        (address p, uint256 bond) = _payeeWithAnotherBond();

        bytes32 id = newJob(1, 4, 4); // full sample
        Results memory truth = buildResults(id, 1, 4, "honest", two(p, procB));
        Results memory fake = copyResults(truth);
        fake.outputs[0] = keccak256("fake");
        _rebuild(id, 4, fake);
        address[] memory named = new address[](2);
        named[0] = p;
        named[1] = p;
        uint256 s0 = stakeOf(p);
        submitNaming(id, finalizer, fake.root, named);
        verifyRound(id, fake, views3(truth, truth, truth), allBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open), "rejected");
        assertEq(s0 - stakeOf(p), bond, "the faking payee is slashed one bond");
        assertEq(registry.lockedStake(p), bond, "the other job's bond is still locked");
        vm.prank(p);
        registry.requestExit();
        vm.warp(block.timestamp + 1 days + 1);
        vm.prank(p);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.StakeIsLocked.selector, bond));
        registry.withdraw();
    }

    /// The zero address and the escrow cannot be named (neither can join): a submission cannot make them answer for
    /// a leaf, so a wrong leaf paying them is the submitter's fault.
    function test_zeroAndEscrowPayeesCannotBeNamed() public {
        bytes32 id = newJob(1, 4, 1);
        Results memory r = buildResults(id, 1, 4, "honest", two(address(0), address(escrow)));
        commitFirst(id, finalizer, r.root);
        vm.prank(finalizer);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowPayees.PayeeNotJoined.selector, address(0)));
        escrow.submitResults(id, r.root, "bafy-manifest", one(address(0)));
        vm.prank(finalizer);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowPayees.PayeeNotJoined.selector, address(escrow)));
        escrow.submitResults(id, r.root, "bafy-manifest", one(address(escrow)));
    }

    // ------------------------------------------------------------------ 4. restarts, reopens and refunds

    /// @dev An undecided round (one match, one "wrong leaf", one silent): the round restarts, the silent verifier's
    ///      penalty pays the revealers.
    function _restartedRound() internal returns (bytes32 id, Results memory truth) {
        id = newJob(1, 4, 1);
        truth = honestResults(id, 1, 4);
        Results memory other = buildResults(id, 1, 4, "other", two(procA, procB));
        submit(id, finalizer, truth.root);
        Results memory silent;
        verifyRound(id, truth, views3(truth, other, silent), noBlame(3));
        JobEscrowBase.Job memory j = escrow.jobs(id);
        assertEq(uint256(j.status), uint256(JobEscrowBase.Status.Submitted), "still submitted");
        assertEq(j.assigned, 0, "restarted: no verifier");
    }

    /// A round restarts; the deadline passes before anyone draws again: the creator is refunded the fee once, and
    /// nothing of the job pays anybody else after it (no claim, no settle, no second refund).
    function test_restartThenRefundPaysTheFeeOnce() public {
        (bytes32 id, Results memory truth) = _restartedRound();
        vm.warp(escrow.jobs(id).deadline + 1);
        vm.expectRevert(JobEscrowBase.DeadlinePassed.selector);
        escrow.selectVerifiers(id);
        uint256 c0 = creator.balance;
        escrow.refund(id);
        assertEq(creator.balance - c0, FEE, "the fee back");
        escrow.refund(id); // idempotent
        escrow.settle(id); // no-op
        assertEq(creator.balance - c0, FEE, "once");
        assertEq(registry.lockedStake(finalizer), 0, "the submitter's bond is free");
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.WrongStatus.selector, id, JobEscrowBase.Status.Refunded));
        _claimPositions(id, truth, 4, _range(4));
        _withdrawAll(new address[](0));
        assertEq(address(escrow).balance, 0, "the escrow ends empty");
    }

    /// A round restarts, the new draw completes before the deadline and its round ends after it: no refund while it
    /// runs, and once released no refund at all; the fee pays the processors and verifiers only.
    function test_releaseAfterARestartBlocksTheRefund() public {
        (bytes32 id, Results memory truth) = _restartedRound();
        select(id);
        vm.warp(escrow.jobs(id).deadline + 1);
        vm.expectRevert(JobEscrowBase.VerificationUnderway.selector);
        escrow.refund(id);
        Results[] memory v = views3(truth, truth, truth);
        commitViews(id, v, noBlame(3));
        prove(id, truth);
        vm.roll(block.number + 1);
        revealViews(id, truth, v, noBlame(3));
        escrow.settle(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Released));
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.WrongStatus.selector, id, JobEscrowBase.Status.Released));
        escrow.refund(id);
        _claimPositions(id, truth, 4, _range(4));
        _withdrawAll(new address[](0));
        assertApproxEqAbs(address(escrow).balance, 0, 4); // only the processor pool's rounding dust until the sweep
        vm.warp(block.timestamp + 8 days);
        escrow.sweep(id);
        _withdrawAll(new address[](0));
        assertEq(address(escrow).balance, 0);
    }

    /// A creator whose refund always reverts cannot hold the submitter's and the payees' bonds hostage: past the
    /// deadline settle reopens the undrawn job and unlocks them (its own fee stays unpaid, its loss only).
    function test_aCreatorRefusingItsRefundCannotLockTheBonds() public {
        RejectingCreator rc = new RejectingCreator();
        vm.deal(address(rc), 0);
        address p = nodeAddr(2);
        JobEscrowBase.CreateJobParams memory prm = jobParams(1, 4, 3);
        vm.deal(address(this), FEE);
        bytes32 id = rc.create{value: FEE}(escrow, prm);
        Results memory r = buildResults(id, 1, 4, "honest", two(p, procB));
        _pauseAllBut(finalizer, p); // the draw cannot find three verifiers
        submitNaming(id, finalizer, r.root, one(p));
        vm.roll(block.number + 2);
        vm.prank(finalizer);
        escrow.selectVerifiers(id);
        assertEq(escrow.jobs(id).assigned, 0, "waits");
        vm.warp(escrow.jobs(id).deadline + 1);
        vm.expectRevert(JobEscrowBase.TransferFailed.selector);
        escrow.refund(id);
        escrow.settle(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Open), "reopened");
        assertEq(registry.lockedStake(finalizer), 0, "the submitter's bond is free");
        assertEq(registry.lockedStake(p), 0, "the payee's bond is free");
    }

    // ------------------------------------------------------------------ 5. stale rounds

    /// The verifiers of a restarted round cannot seed, commit or reveal in the next one, and are not paid in it.
    function test_verifiersOfARestartedRoundHaveNoSayInTheNext() public {
        bytes32 id = newJob(1, 4, 1);
        Results memory truth = honestResults(id, 1, 4);
        Results memory other = buildResults(id, 1, 4, "other", two(procA, procB));
        submit(id, finalizer, truth.root);
        select(id);
        JobEscrowBase.Verifier[] memory old = escrow.verifiersOf(id);
        Results memory silent;
        Results[] memory v1 = views3(truth, other, silent);
        commitViews(id, v1, noBlame(3));
        prove(id, truth);
        vm.roll(escrow.jobs(id).commitDeadline + 1);
        revealViews(id, truth, v1, noBlame(3));
        vm.roll(escrow.jobs(id).revealDeadline + 1);
        escrow.settle(id);
        assertEq(escrow.jobs(id).assigned, 0, "restarted");
        // the silent old verifier (it committed nothing) tries its late commitment in the new round
        select(id);
        JobEscrowBase.Verifier[] memory now_ = escrow.verifiersOf(id);
        for (uint256 i; i < old.length; ++i) {
            bool drawnAgain;
            for (uint256 x; x < now_.length; ++x) if (now_[x].node == old[i].node) drawnAgain = true;
            if (drawnAgain) continue;
            vm.prank(old[i].node);
            vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.NotVerifier.selector, old[i].node));
            escrow.commitVerification(id, keccak256("stale"));
            vm.prank(old[i].node);
            vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.NotVerifier.selector, old[i].node));
            escrow.revealSeed(id, bytes32(uint256(1)), bytes32(0));
        }
        // each verifier of the new round must commit afresh: no commitment carried over
        for (uint256 i; i < now_.length; ++i) {
            assertFalse(now_[i].committed, "no commitment carried over");
            assertFalse(now_[i].revealed, "no reveal carried over");
        }
        assertEq(escrow.jobs(id).commits, 0);
        assertEq(escrow.jobs(id).reveals, 0);
    }

    /// A result commitment made in a rejected round does not open in the next one (it names the round).
    function test_aResultCommitOfARejectedRoundDoesNotOpenInTheNext() public {
        bytes32 id = newJob(1, 4, 4);
        Results memory truth = honestResults(id, 1, 4);
        Results memory fake = buildResults(id, 1, 4, "fake", one(attacker));
        // the attacker commits its fake for round 0 but lets the finalizer's fake go first (both rejected)
        vm.prank(attacker);
        escrow.commitResults(id, Encoding.resultCommitment(id, 0, fake.root, "bafy-manifest", attacker));
        submit(id, finalizer, fake.root);
        verifyRound(id, fake, views3(truth, truth, truth), noBlame(3));
        assertEq(escrow.jobs(id).rejections, 1);
        vm.roll(block.number + 1);
        vm.prank(attacker);
        vm.expectRevert(JobEscrowBase.ResultCommitMismatch.selector);
        escrow.submitResults(id, fake.root, "bafy-manifest", new address[](0));
    }

    // ------------------------------------------------------------------ 6. penalties once, not twice

    /// A verifier that withholds its seed is slashed the bond once: closeSeeds twice, then settle, take the bond
    /// and (silent) one share, no more; the two others are paid and the job released.
    function test_aSeedWithholderIsPenalisedOnce() public {
        bytes32 id = newJob(1, 4, 1);
        Results memory r = honestResults(id, 1, 4);
        submit(id, finalizer, r.root);
        vm.roll(block.number + 2);
        escrow.selectVerifiers(id);
        uint256 w = _richestVerifier(id);
        address withholder = escrow.verifiersOf(id)[w].node;
        for (uint256 i; i < 3; ++i) if (i != w) revealSeedOf(id, escrow.verifiersOf(id)[i].node);
        uint256[2] memory s; // stake, treasury credit before
        s[0] = stakeOf(withholder);
        s[1] = escrow.credits(treasury);
        vm.roll(uint256(escrow.jobs(id).seedDeadline) + 1);
        escrow.closeSeeds(id);
        escrow.closeSeeds(id);
        uint256 expectBond = _min(s[0], escrow.bondOf(id));
        assertEq(s[0] - stakeOf(withholder), expectBond, "the bond once");
        _finishWithSilent(id, r, w);
        escrow.settle(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Released));
        uint256 share = escrow.verifierShare(id);
        uint256 expectShare = _min(s[0] - expectBond, share);
        assertEq(s[0] - stakeOf(withholder), expectBond + expectShare, "the bond and one share, nothing more");
        // the treasury got the withholder's bond and share and the unpaid third share (with the pool's dust)
        assertEq(escrow.credits(treasury) - s[1], expectBond + expectShare + (_verifierPoolOf(id) - 2 * share));
    }

    function _min(uint256 a, uint256 b) internal pure returns (uint256) {
        return a < b ? a : b;
    }

    function _richestVerifier(bytes32 id) internal view returns (uint256 w) {
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        for (uint256 i = 1; i < vs.length; ++i) if (stakeOf(vs[i].node) > stakeOf(vs[w].node)) w = i;
    }

    /// @dev The verifiers but `w` commit and reveal `r`; `w` is silent; settles once (and once more, a no-op).
    function _finishWithSilent(bytes32 id, Results memory r, uint256 w) internal {
        Results memory silent;
        Results[] memory v = new Results[](3);
        for (uint256 i; i < 3; ++i) v[i] = i == w ? silent : r;
        commitViews(id, v, noBlame(3));
        prove(id, r);
        vm.roll(escrow.jobs(id).commitDeadline + 1);
        revealViews(id, r, v, noBlame(3));
        vm.roll(escrow.jobs(id).revealDeadline + 1);
        escrow.settle(id);
    }

    function _verifierPoolOf(bytes32 id) internal view returns (uint256) {
        return escrow.jobs(id).fee - escrow.processorPool(id);
    }

    /// The late-draw bounty is paid once per draw window: a second caller (the draw went to the queue) gets nothing,
    /// and the submitter's bond is slashed once.
    function test_theLateDrawBountyIsPaidOnce() public {
        bytes32 id = newJob(1, 4, 1);
        Results memory r = honestResults(id, 1, 4);
        submit(id, finalizer, r.root);
        _pauseAllBut(finalizer, nodeAddr(2)); // too few verifiers: the draw waits in the queue
        uint256 s0 = stakeOf(finalizer);
        vm.roll(block.number + 1 + escrow.DRAW_GRACE_BLOCKS() + 1);
        vm.prank(address(0xAA));
        escrow.selectVerifiers(id);
        uint256 bounty = escrow.bondOf(id) * escrow.DRAW_BOUNTY_BPS() / 10_000;
        assertEq(escrow.credits(address(0xAA)), bounty);
        vm.roll(block.number + 5);
        vm.prank(address(0xBB));
        escrow.selectVerifiers(id);
        assertEq(escrow.credits(address(0xBB)), 0, "no second bounty");
        assertEq(s0 - stakeOf(finalizer), bounty, "one slash");
    }

    /// A submitter slashed below its locked bond (a late-draw bounty) and asking to exit cannot withdraw until its
    /// round ends; then it leaves with exactly what is left (the unlock clamps, it frees no other bond), and the
    /// registry's balance is the stakes.
    function test_aSubmitterSlashedBelowItsLockLeavesWithWhatIsLeftAfterTheRound() public {
        address sub = nodeAddr(2); // 2 ETH staked: exactly the bond of a 1 ETH job
        bytes32 id = newJob(1, 4, 1);
        Results memory r = honestResults(id, 1, 4);
        submit(id, sub, r.root);
        uint256 bond = escrow.bondOf(id);
        vm.prank(sub);
        registry.requestExit();
        vm.roll(block.number + 1 + escrow.DRAW_GRACE_BLOCKS() + 1);
        vm.prank(address(0xAA));
        escrow.selectVerifiers(id); // the watcher's bounty is slashed from the locked bond
        uint256 left = stakeOf(sub);
        assertEq(left, 2 ether - bond * escrow.DRAW_BOUNTY_BPS() / 10_000);
        assertEq(registry.lockedStake(sub), bond, "the lock is not lowered by the slash");
        vm.warp(block.timestamp + 1 days + 1);
        vm.prank(sub);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.StakeIsLocked.selector, bond));
        registry.withdraw();
        revealSeeds(id);
        judge(id, r, views3(r, r, r), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Released));
        assertEq(registry.lockedStake(sub), 0);
        uint256 b0 = sub.balance;
        vm.prank(sub);
        registry.withdraw();
        assertEq(sub.balance - b0, left, "exactly what is left");
        assertEq(address(registry).balance, _sumStakes(new address[](0)), "the registry holds the stakes");
    }

    // ------------------------------------------------------------------ 7. every wei somewhere, every stake counted

    /// A mix of the paths above on several jobs (bounty, seed withholding, restart, reopen, refund, unproven
    /// rejection, release with an unpayable leaf, sweep): once all is withdrawn the escrow holds nothing and the
    /// registry holds exactly the stakes.
    function test_everyWeiEndsSomewhereAcrossRestartsAndPenalties() public {
        // A: restarted, refunded
        (bytes32 a,) = _restartedRound();
        // B: unproven sample, committed verifiers paid from the slash
        bytes32 b = newJob(1, 4, 1);
        Results memory rb = honestResults(b, 1, 4);
        submit(b, attacker, rb.root);
        select(b);
        commitViews(b, views3(rb, rb, rb), noBlame(3));
        vm.roll(escrow.jobs(b).revealDeadline + 1);
        escrow.settle(b);
        assertEq(status(b), uint256(JobEscrowBase.Status.Open), "rejected: unproven");
        // C: released with a leaf paying the escrow, claimed, swept
        bytes32 c = newJob(1, 4, 1);
        Results memory rc = buildResults(c, 1, 4, "honest", two(address(escrow), procB));
        submit(c, finalizer, rc.root);
        verifyRound(c, rc, views3(rc, rc, rc), noBlame(3));
        uint256[] memory odd = new uint256[](2);
        odd[0] = 1;
        odd[1] = 3;
        _claimPositions(c, rc, 4, odd);
        // all past their deadlines
        vm.warp(block.timestamp + 8 days);
        escrow.refund(a);
        escrow.refund(b);
        escrow.sweep(c);
        _withdrawAll(new address[](0));
        assertEq(address(escrow).balance, 0, "the escrow holds nothing");
        assertEq(address(registry).balance, _sumStakes(new address[](0)), "the registry holds the stakes");
    }
}
