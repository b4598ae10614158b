// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// a job's round counter (`rejections`) is a uint8. A creator that submits garbage to its own small job and
/// never proves the sample has it rejected for a bond of 2 x the fee (a few thousand wei at minFee) per round; the
/// 256th rejection overflowed the counter, so `settle` reverted for good: the job stayed Submitted with its k verifiers
/// assigned, the refund refused (`VerificationUnderway`), and the drawn honest verifiers stayed busy forever (their
/// stakes never withdrawable, `NodeIsBusy`; never drawn again).
contract RoundOverflowTest is AttackBase {
    function _rejectedRound(bytes32 id, uint256 r) internal {
        submit(id, attacker, keccak256(abi.encode("garbage", r)));
        select(id);
        // nobody proves the sample, nobody commits: the round is rejected against the submitter alone
        vm.roll(uint256(escrow.jobs(id).revealDeadline) + 1);
        escrow.settle(id);
    }

    /// 255 rejected rounds cost the attacker 255 bonds; a 256th round is refused before anybody is drawn for it (no
    /// verifier can be left busy by a settle that cannot run), and the job is refunded at its deadline.
    function test_a256thRoundIsRefusedAndTheJobRefunded() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
        p.deadline = uint40(block.timestamp + 30 days);
        bytes32 id = createJob(p, 4000); // the minimum fee: (1 + 3 x 1) x minFee
        uint256 att0 = stakeOf(attacker);
        for (uint256 r; r < 255; ++r) _rejectedRound(id, r);
        assertEq(escrow.jobs(id).rejections, 255);
        assertEq(att0 - stakeOf(attacker), 255 * 8000, "255 rounds cost the attacker 255 bonds of 8000 wei");
        vm.prank(attacker);
        vm.expectRevert(abi.encodeWithSignature("TooManyRounds()"));
        escrow.commitResults(id, keccak256("c"));
        assertEq(escrow.jobs(id).assigned, 0);
        vm.warp(p.deadline + 1);
        uint256 c0 = creator.balance;
        escrow.refund(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Refunded));
        assertEq(creator.balance - c0, 4000);
        assertEq(registry.lockedStake(attacker), 0);
    }
}
