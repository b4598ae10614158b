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

    function test_manyRejectionsNeverFreezeTheVerifiers() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
        p.deadline = uint40(block.timestamp + 30 days);
        bytes32 id = createJob(p, 4000); // the minimum fee: (1 + 3 x 1) x minFee
        uint256 att0 = stakeOf(attacker);
        for (uint256 r; r < 255; ++r) _rejectedRound(id, r);
        assertEq(escrow.jobs(id).rejections, 255);
        assertEq(att0 - stakeOf(attacker), 255 * 8000, "255 rounds cost the attacker 255 bonds of 8000 wei");
        // round 255: drawn honest verifiers; the attacker again proves nothing
        if (_submitLastRound(id)) {
            JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
            vm.roll(uint256(escrow.jobs(id).revealDeadline) + 1);
            escrow.settle(id); // reverted with an arithmetic overflow
            for (uint256 i; i < vs.length; ++i) {
                assertFalse(registry.nodeInfo(vs[i].node).busy, "the verifiers are released");
            }
        }
        // either way the job ends: refunded at its deadline, no node left busy
        vm.warp(p.deadline + 1);
        uint256 c0 = creator.balance;
        escrow.refund(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Refunded));
        assertEq(creator.balance - c0, 4000);
        assertEq(registry.lockedStake(attacker), 0);
    }

    function test_a256thRoundIsRefused() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
        p.deadline = uint40(block.timestamp + 30 days);
        bytes32 id = createJob(p, 4000);
        for (uint256 r; r < 255; ++r) _rejectedRound(id, r);
        vm.prank(attacker);
        vm.expectRevert(abi.encodeWithSignature("TooManyRounds()"));
        escrow.commitResults(id, keccak256("c"));
    }

    /// @dev Submits round 255 when the escrow still takes it; false when it refuses a 256th round.
    function _submitLastRound(bytes32 id) internal returns (bool) {
        bytes32 root = keccak256("garbage-last");
        uint256 round = escrow.jobs(id).rejections;
        vm.prank(attacker);
        try escrow.commitResults(id, keccak256(abi.encode(id, round, root, "bafy-manifest", attacker))) {}
        catch {
            return false;
        }
        vm.roll(block.number + 1);
        vm.prank(attacker);
        escrow.submitResults(id, root, "bafy-manifest");
        select(id);
        return true;
    }
}
