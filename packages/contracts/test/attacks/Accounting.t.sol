// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// Invariant by construction: every wei of every job ends with a processor that did work, a verifier, the creator
/// or the treasury, and nothing is paid twice. After a mix of outcomes (a rejection then a release with an
/// unclaimed leaf swept, a refund, a restarted round) and every credit withdrawn, the escrow holds nothing.
contract AccountingTest is AttackBase {
    function test_everyWeiEndsSomewhere() public {
        uint256 paidIn;
        // job A: a faked round (rejected, culprit slashed), then an honest one (released); one leaf never claimed
        bytes32 a = newJob(2, 4, 2);
        paidIn += FEE;
        Results memory truth = honestResults(a, 2, 4);
        Results memory fake = buildResults(a, 2, 4, "fake", one(attacker));
        uint256 e0 = address(escrow).balance;
        submit(a, attacker, fake.root);
        verifyRound(a, fake, views3(truth, truth, truth), noBlame(3));
        paidIn += address(escrow).balance - e0; // the slash
        submit(a, finalizer, truth.root);
        Results memory silent;
        e0 = address(escrow).balance;
        verifyRound(a, truth, views3(truth, truth, silent), noBlame(3)); // one silent verifier penalised
        paidIn += address(escrow).balance - e0;
        uint256 per = 4;
        JobEscrowBase.ResultLeaf[] memory leaves = new JobEscrowBase.ResultLeaf[](7);
        bytes32[][] memory proofs = new bytes32[][](7);
        for (uint256 pos; pos < 7; ++pos) {
            leaves[pos] = leafAt(a, truth, per, pos);
            proofs[pos] = merkleProof(truth.leaves, pos);
        }
        escrow.claim(a, leaves, proofs);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.AlreadyClaimed.selector, 0));
        escrow.claim(a, leaves, proofs);
        vm.warp(block.timestamp + 8 days);
        escrow.sweep(a);
        // job B: never submitted, refunded
        bytes32 b = newJob(1, 1, 1);
        paidIn += FEE;
        vm.warp(block.timestamp + 2 days);
        escrow.refund(b);
        // job C: all verifiers silent (nobody committed: the round restarts, nobody is slashed), then refunded
        bytes32 c = newJob(1, 2, 1);
        paidIn += FEE;
        Results memory tc = honestResults(c, 1, 2);
        submit(c, finalizer, tc.root);
        e0 = address(escrow).balance;
        verifyRound(c, tc, views3(silent, silent, silent), noBlame(3));
        paidIn += address(escrow).balance - e0;
        vm.warp(block.timestamp + 2 days);
        escrow.refund(c);
        // everybody withdraws
        address[] memory who = new address[](9);
        for (uint256 i; i < 7; ++i) who[i] = nodeAddr(i);
        who[7] = treasury;
        who[8] = creator;
        for (uint256 i; i < who.length; ++i) {
            if (escrow.credits(who[i]) == 0) continue;
            vm.prank(who[i]);
            escrow.withdrawCredit();
        }
        assertEq(address(escrow).balance, 0, "nothing left behind");
        assertTrue(paidIn > 3 * FEE, "slashes and penalties flowed in");
    }
}
