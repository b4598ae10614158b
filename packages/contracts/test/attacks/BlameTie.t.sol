// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// a faking processor's accomplice among the drawn verifiers turns the blame on the honest finalizer. The
/// accomplice votes with the majority that found the faked leaf wrong (so it is paid), but says "the submitter did it"
/// (processorBlame = false). With one honest verifier silent (offline), the two votes of the majority tie on the
/// blame, and a tie blamed the submitter: the honest finalizer lost its bond (2 x fee), the faker nothing. A clear
/// blame majority still slashes the faker: CulpritSlashing.t.sol.
contract BlameTieTest is AttackBase {
    function test_aBlameTieDoesNotSlashTheHonestFinalizer() public {
        bytes32 id = newJob(1, 4, 4); // full verification: the fake is always sampled
        Results memory truth = buildResults(id, 1, 4, "honest", two(attacker, procA));
        Results memory sent = copyResults(truth);
        sent.outputs[2] = keccak256("wrong"); // position 2: processed (and signed wrong) by the attacker
        _rebuild(id, 4, sent);
        uint256 fin0 = stakeOf(finalizer);
        uint256 att0 = stakeOf(attacker);
        submitNaming(id, finalizer, sent.root, one(attacker));
        Results memory silent; // an honest verifier that is offline this round
        bool[] memory blame = new bool[](3);
        blame[0] = false; // the accomplice: "bad leaf, the submitter's fault"
        blame[1] = true; // the honest verifier: "bad leaf, its processor signed it"
        verifyRound(id, sent, views3(truth, truth, silent), blame);
        // the finalizer only built the leaf from the processor's signed record: it must not pay for the fake
        assertEq(stakeOf(finalizer), fin0, "the honest finalizer keeps its stake");
        assertTrue(stakeOf(attacker) <= att0, "the faker gains nothing");
        // undecided: the round restarts (before the deadline), nobody paid from the fee
        assertEq(status(id), uint256(JobEscrowBase.Status.Submitted), "the round restarts");
        assertEq(escrow.jobs(id).rejections, 0);
        assertEq(escrow.jobs(id).assigned, 0);
    }

    /// The other direction of the tie: a submitter that altered an honest processor's output, with an accomplice
    /// verifier blaming the processor beside one honest verifier (a third silent), does not get the processor slashed.
    function test_aBlameTieDoesNotSlashTheHonestProcessor() public {
        address honestProc = nodeAddr(2);
        bytes32 id = newJob(1, 4, 4);
        Results memory truth = buildResults(id, 1, 4, "honest", one(honestProc));
        Results memory sent = copyResults(truth);
        sent.outputs[1] = keccak256("altered");
        _rebuild(id, 4, sent);
        uint256 proc0 = stakeOf(honestProc);
        submitNaming(id, attacker, sent.root, one(honestProc));
        Results memory silent;
        bool[] memory blame = new bool[](3);
        blame[0] = true; // the accomplice: "the processor signed it"
        blame[1] = false; // the honest verifier: "the submitter altered it"
        verifyRound(id, sent, views3(truth, truth, silent), blame);
        assertTrue(stakeOf(honestProc) >= proc0, "the honest processor keeps its stake");
        // undecided as well (a tie used to blame the submitter here, the right culprit by luck): the round restarts
        assertEq(status(id), uint256(JobEscrowBase.Status.Submitted), "the round restarts");
        assertEq(escrow.jobs(id).rejections, 0);
    }
}
