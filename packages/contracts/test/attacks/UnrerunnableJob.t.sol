// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// @notice A creator whose own node is its job's only processor can make the job impossible to re-run for anyone
///         else (a run-time hint of 0 gives the shortest commit window, code slower than that, or inputs it serves to
///         nobody) and submit it. The drawn verifiers cannot re-run the sample in time and never commit; the round has
///         no majority, and at the deadline the creator refunds the whole fee. Until 2026-11-30 each silent verifier
///         was slashed one share per round, then (until the next fix) paused and scored 0: honest stakes, then
///         honest nodes' place in the draw, for gas (docs/settlement.md, Known gaps).
contract UnrerunnableJobTest is AttackBase {
    /// The creator's node (node 0, the attacker) processes and submits; node 1 (the finalizer of the other tests) is
    /// its accomplice here, a registered node of the attacker's.
    function jobDrawing(bool withAccomplice, uint256 nonceBase) internal returns (bytes32 id, Results memory r, JobEscrowBase.Verifier[] memory vs) {
        for (uint256 n; n < 100; ++n) {
            uint256 snap = vm.snapshotState();
            vm.roll(block.number + 1 + n);
            JobEscrowBase.CreateJobParams memory p = jobParams(2, 4, 3);
            p.nonce = nonceBase + n;
            p.secondsPerMicroJob = 0; // the creator's hint: the shortest commit window the escrow gives
            id = createJob(p, FEE);
            r = honestResults(id, 2, 4);
            submit(id, attacker, r.root);
            select(id);
            vs = escrow.verifiersOf(id);
            bool drawn;
            for (uint256 i; i < vs.length; ++i) if (vs[i].node == finalizer) drawn = true;
            if (drawn == withAccomplice && vs.length == 3) return (id, r, vs);
            vm.revertToState(snap);
        }
        revert("no such draw");
    }

    /// Nobody could re-run the sample, so nobody committed: the round restarts and nobody is slashed, paused or
    /// scored (every verifier revealed its seed: it was there). Round after round until the deadline, the honest
    /// verifiers keep their stakes, their QoS and their place in the draw; the creator refunds its fee and gains
    /// nothing but the outputs it made itself. Until 2026-11-30 each round slashed every verifier one share; after
    /// that fix (the same day) each round still paused every verifier and scored it 0 (seven such rounds kicked a
    /// node out): honest nodes out of the draw for the attacker's gas.
    function test_aJobNobodyCanReRunCostsTheHonestVerifiersNothing() public {
        (bytes32 id, Results memory r, JobEscrowBase.Verifier[] memory vs) = jobDrawing(false, 1_000);
        uint256 treasury0 = escrow.credits(treasury);
        Results memory silent;
        for (uint256 round; round < 4; ++round) {
            uint256[] memory before = new uint256[](3);
            uint256[] memory score = new uint256[](3);
            for (uint256 i; i < 3; ++i) {
                before[i] = stakeOf(vs[i].node);
                (score[i],,,,) = registry.qosState(vs[i].node);
            }
            verifyRound(id, r, views3(silent, silent, silent), noBlame(3));
            assertEq(status(id), uint256(JobEscrowBase.Status.Submitted), "restarted");
            for (uint256 i; i < 3; ++i) {
                assertEq(stakeOf(vs[i].node), before[i], "no honest stake taken");
                assertEq(escrow.credits(vs[i].node), 0);
                assertFalse(registry.nodeInfo(vs[i].node).paused, "still in the draw");
                (uint256 s,,,,) = registry.qosState(vs[i].node);
                assertEq(s, score[i], "no task score recorded");
            }
            select(id); // the next round draws again from the honest nodes
            vs = escrow.verifiersOf(id);
            assertEq(vs.length, 3, "a full draw: nobody was taken out");
        }
        assertEq(escrow.credits(treasury), treasury0, "nothing taken in the restarted rounds");
        // at the deadline: the last round, drawn but never proven, is rejected against the attacker (its bond), and
        // still no honest verifier loses anything; the creator refunds
        uint256[] memory last = new uint256[](3);
        for (uint256 i; i < 3; ++i) last[i] = stakeOf(vs[i].node);
        uint256 attackerStake = stakeOf(attacker);
        vm.warp(escrow.jobs(id).deadline + 1);
        vm.roll(escrow.jobs(id).revealDeadline + 1);
        escrow.settle(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Open), "rejected: its sample was never proven");
        assertGt(attackerStake, stakeOf(attacker), "the attacker pays its bond");
        for (uint256 i; i < 3; ++i) assertEq(stakeOf(vs[i].node), last[i], "no honest stake taken");
        uint256 c0 = creator.balance;
        escrow.refund(id);
        assertEq(creator.balance - c0, FEE, "the creator gets its fee back, and no more");
    }

    /// What is left (recorded, not closed): when a node of the attacker's is drawn among the verifiers, it reveals a
    /// match it computed itself; with one commit the silent honest verifiers are slashed one share each as before,
    /// and the accomplice is paid a share of those penalties. The attack now needs the attacker's own stake drawn.
    function test_anAccompliceDrawnStillGetsTheSilentSlashed() public {
        (bytes32 id, Results memory r, JobEscrowBase.Verifier[] memory vs) = jobDrawing(true, 2_000);
        Results[] memory views = new Results[](3);
        uint256[] memory before = new uint256[](3);
        for (uint256 i; i < 3; ++i) {
            before[i] = stakeOf(vs[i].node);
            if (vs[i].node == finalizer) views[i] = r; // the accomplice "re-runs" with the creator's inputs
        }
        verifyRound(id, r, views, noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Submitted), "no majority: restarted");
        uint256 share = escrow.verifierShare(id);
        for (uint256 i; i < 3; ++i) {
            if (vs[i].node == finalizer) assertEq(escrow.credits(finalizer), share, "the accomplice is paid a share");
            else assertEq(stakeOf(vs[i].node), before[i] - share, "each silent honest verifier slashed one share");
        }
    }
}
