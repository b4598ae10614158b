// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// Attack 2: the submitter withholds the draw until the entropy block is older than 256 blocks and re-rolls until
/// its fakes are not sampled.
contract RerolledSampleTest is AttackBase {
    /// A missed draw window is no free re-roll: each one slashes drawPenaltyBps of the bond (0.5 x fee at the
    /// defaults) to the treasury. The expected gain of a re-roll is at most the processor pool the fake saves,
    /// less than the fee, so two re-rolls already cost more than faking the whole job could bring.
    function test_eachRerollCostsHalfTheFee() public {
        bytes32 id = newJob(4, 8, 1);
        Results memory fake = buildResults(id, 4, 8, "fake", one(attacker));
        submit(id, attacker, fake.root);
        uint256 stake0 = stakeOf(attacker);
        for (uint256 r; r < 4; ++r) {
            vm.roll(block.number + 300);
            escrow.selectVerifiers(id);
            assertEq(escrow.jobs(id).drawEntropy, bytes32(0));
        }
        uint256 penalty = escrow.bondOf(id) * 2500 / 10000;
        assertEq(penalty, FEE / 2);
        assertEq(stakeOf(attacker), stake0 - 4 * penalty);
        assertEq(escrow.credits(treasury), 4 * penalty);
        assertTrue(4 * penalty > escrow.processorPool(id), "re-rolling costs more than the job pays");
    }

    /// Anyone may draw: a third party draws at submitBlock + 2, and then the sample is fixed for the round
    /// (calling again changes nothing).
    function test_anyoneDrawsAndTheSampleIsFixed() public {
        bytes32 id = newJob(2, 4, 1);
        Results memory fake = buildResults(id, 2, 4, "fake", one(attacker));
        submit(id, attacker, fake.root);
        vm.roll(block.number + 2);
        vm.prank(address(0xD1CE));
        escrow.selectVerifiers(id);
        bytes32 e = escrow.jobs(id).drawEntropy;
        assertTrue(e != bytes32(0));
        vm.roll(block.number + 300);
        escrow.selectVerifiers(id);
        assertEq(escrow.jobs(id).drawEntropy, e);
        assertEq(escrow.validationIndex(id, 1), escrow.validationIndex(id, 1));
        assertEq(escrow.credits(address(0xD1CE)), 0, "inside the submitter's grace: no bounty");
    }

    /// A submitter that sits on its draw (waiting for the window to lapse) is preempted: after the grace blocks a
    /// watcher's first draw fixes the sample and is paid DRAW_BOUNTY_BPS of the submitter's bond.
    function test_lateDrawPaysTheWatcherFromTheSubmittersBond() public {
        bytes32 id = newJob(2, 4, 1);
        Results memory fake = buildResults(id, 2, 4, "fake", one(attacker));
        submit(id, attacker, fake.root);
        uint256 stake0 = stakeOf(attacker);
        uint256 sb = escrow.jobs(id).submitBlock;
        vm.roll(sb + 1 + escrow.DRAW_GRACE_BLOCKS() + 1);
        address watcher = address(0xD1CE);
        vm.prank(watcher);
        escrow.selectVerifiers(id);
        assertTrue(escrow.jobs(id).drawEntropy != bytes32(0), "the draw is fixed");
        uint256 bounty = escrow.bondOf(id) * escrow.DRAW_BOUNTY_BPS() / 10000;
        assertEq(bounty, FEE / 10);
        assertEq(escrow.credits(watcher), bounty);
        assertEq(stakeOf(attacker), stake0 - bounty);
        // only the first draw pays: drawing again (e.g. for a parked job) changes nothing
        vm.roll(block.number + 5);
        vm.prank(address(0xBEEF));
        escrow.selectVerifiers(id);
        assertEq(escrow.credits(address(0xBEEF)), 0);
        assertEq(stakeOf(attacker), stake0 - bounty);
    }

    /// The submitter's own late draw pays nobody: the bounty is for others, and the entropy is the same block's.
    function test_submittersOwnLateDrawPaysNoBounty() public {
        bytes32 id = newJob(2, 4, 1);
        Results memory fake = buildResults(id, 2, 4, "fake", one(attacker));
        submit(id, attacker, fake.root);
        uint256 stake0 = stakeOf(attacker);
        vm.roll(escrow.jobs(id).submitBlock + 1 + escrow.DRAW_GRACE_BLOCKS() + 10);
        vm.prank(attacker);
        escrow.selectVerifiers(id);
        assertEq(stakeOf(attacker), stake0);
        assertEq(escrow.credits(attacker), 0);
    }
}
