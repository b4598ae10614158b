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
        submitNaming(id, finalizer, sent.root, one(attacker));
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
        submitNaming(id, attacker, sent.root, one(honestProc)); // named: its bond is locked, yet it is not blamed
        verifyRound(id, sent, views3(truth, truth, truth), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open));
        assertEq(stakeOf(attacker), att0 - 2 * FEE);
        // the honest processor might have been drawn as a verifier (paid, not slashed) but never loses stake
        assertTrue(stakeOf(honestProc) >= proc0);
        assertEq(registry.lockedStake(honestProc), 0, "its bond is unlocked with the round");
    }

    /// A submitter with two jobs submitted is caught faking one: it loses that job's bond, and the other job's bond
    /// stays locked (the registry's slash used to lower the locked stake to the stake left, and the unlock that
    /// followed then freed the other bond too).
    function test_rejectionLeavesTheSubmittersOtherBondLocked() public {
        uint256 bond = 2 * FEE;
        address sub = registerNode(9, GPU_A, 24, 2 * bond); // staked exactly the two bonds
        bytes32 faked = newJob(1, 4, 4);
        bytes32 other = newJob(1, 4, 4);
        Results memory truth = honestResults(faked, 1, 4);
        Results memory fake = buildResults(faked, 1, 4, "fake", one(sub));
        submit(faked, sub, fake.root);
        submit(other, sub, honestResults(other, 1, 4).root);
        assertEq(registry.lockedStake(sub), 2 * bond);
        verifyRound(faked, fake, views3(truth, truth, truth), noBlame(3));
        assertEq(stakeOf(sub), bond, "the faked job's bond is slashed");
        assertEq(registry.lockedStake(sub), bond, "the other job's bond is still locked");
    }

    /// The culprit is announced: JobRejected carries the slashed address and the sample position, so the next
    /// round can exclude the culprit's work.
    function test_rejectionNamesTheCulprit() public {
        bytes32 id = newJob(1, 2, 2);
        Results memory truth = buildResults(id, 1, 2, "honest", one(attacker));
        Results memory sent = copyResults(truth);
        sent.outputs[0] = keccak256("wrong");
        _rebuild(id, 2, sent);
        submitNaming(id, finalizer, sent.root, one(attacker));
        select(id);
        commitViews(id, views3(truth, truth, truth), allBlame(3));
        prove(id, sent);
        revealViews(id, sent, views3(truth, truth, truth), allBlame(3));
        vm.expectEmit(true, true, false, false, address(escrow));
        emit JobEscrowBase.JobRejected(id, attacker, 0, address(0), 0);
        escrow.settle(id);
    }
}
