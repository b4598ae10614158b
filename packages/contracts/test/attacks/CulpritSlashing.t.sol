// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// Attack 4: the honest finalizer was slashed for another processor's wrong output; the processor that produced it
/// was never identified.
contract CulpritSlashingTest is AttackBase {
    /// A processor (registered, not the submitter) signed a wrong output; the honest finalizer included it as
    /// signed. The verifiers find the sampled leaf wrong and blame its signer: the processor is slashed, the
    /// finalizer keeps its stake, and the job is open for the next round.
    function test_cheatingProcessorIsSlashedNotTheFinalizer() public {
        bytes32 id = newJob(1, 4, 4); // full verification of a 4-MicroJob job
        Results memory truth = buildResults(id, 1, 4, "honest", two(attacker, procA));
        Results memory sent = copyResults(truth);
        sent.outputs[2] = keccak256("wrong"); // position 2 was processed by the attacker (payee of even positions)
        _rebuild(id, 4, sent);
        uint256 fin0 = stakeOf(finalizer);
        uint256 att0 = stakeOf(attacker);
        submit(id, finalizer, sent.root);
        verifyRound(id, sent, views3(truth, truth, truth), allBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open));
        assertEq(stakeOf(finalizer), fin0, "the finalizer keeps its stake");
        assertEq(registry.lockedStake(finalizer), 0, "and its bond is free again");
        assertEq(stakeOf(attacker), att0 - 2 * FEE, "the processor that signed the wrong output is slashed");
        assertEq(escrow.jobs(id).rejections, 1);
    }

    /// A submitter that alters an honest processor's output (the signed record says otherwise) is blamed itself:
    /// the processor named in the leaf keeps its stake.
    function test_submitterAlteringAnOutputIsSlashedNotTheProcessor() public {
        address honestProc = nodeAddr(2);
        bytes32 id = newJob(1, 4, 4);
        Results memory truth = buildResults(id, 1, 4, "honest", one(honestProc));
        Results memory sent = copyResults(truth);
        sent.outputs[1] = keccak256("altered");
        _rebuild(id, 4, sent);
        uint256 proc0 = stakeOf(honestProc);
        uint256 att0 = stakeOf(attacker);
        submit(id, attacker, sent.root);
        verifyRound(id, sent, views3(truth, truth, truth), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open));
        assertEq(stakeOf(attacker), att0 - 2 * FEE);
        // the honest processor might have been drawn as a verifier (paid, not slashed) but never loses stake
        assertTrue(stakeOf(honestProc) >= proc0);
    }

    /// A thieving submitter re-points a leaf to its own sock-puppet node, staked far below the bond, that signed a
    /// copy of the output (no work of its own). The verifiers blame the payee; the sock-puppet's whole stake falls
    /// short of the bond, and the submitter that chose to pay it loses the rest: the theft still costs the bond.
    function test_payeeStakedBelowTheBondLeavesTheRestToTheSubmitter() public {
        uint256 fee = 10 ether; // bond 20 ether
        address sock = registerNode(9, GPU_A, 24, 1 ether);
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 4, 3);
        p.samples = 4;
        bytes32 id = createJob(p, fee);
        Results memory truth = buildResults(id, 1, 4, "honest", one(nodeAddr(2)));
        Results memory sent = copyResults(truth);
        sent.payees[1] = sock;
        _rebuild(id, 4, sent);
        uint256 att0 = stakeOf(attacker);
        uint256 sock0 = stakeOf(sock);
        submit(id, attacker, sent.root);
        verifyRound(id, sent, views3(truth, truth, truth), allBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open), "rejected");
        assertEq(sock0 - stakeOf(sock), 1 ether, "the sock-puppet loses its whole stake");
        assertEq(att0 - stakeOf(attacker), 2 * fee - 1 ether, "the submitter loses the rest of the bond");
        assertEq(registry.lockedStake(attacker), 0, "and nothing stays locked");
    }

    /// The culprit is announced: JobRejected carries the slashed address and the sample position, so the next
    /// round can exclude the culprit's work.
    function test_rejectionNamesTheCulprit() public {
        bytes32 id = newJob(1, 2, 2);
        Results memory truth = buildResults(id, 1, 2, "honest", one(attacker));
        Results memory sent = copyResults(truth);
        sent.outputs[0] = keccak256("wrong");
        _rebuild(id, 2, sent);
        submit(id, finalizer, sent.root);
        select(id);
        commitViews(id, views3(truth, truth, truth), allBlame(3));
        prove(id, sent);
        revealViews(id, sent, views3(truth, truth, truth), allBlame(3));
        vm.expectEmit(true, true, false, false, address(escrow));
        emit JobEscrowBase.JobRejected(id, attacker, 0, address(0), 0);
        escrow.settle(id);
    }
}
