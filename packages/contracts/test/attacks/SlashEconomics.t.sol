// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";
import {NodeRegistry} from "../../src/NodeRegistry.sol";
import {Encoding} from "../../src/libraries/Encoding.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";

/// Attack 5: slash economics: stake-sized slashes on bait jobs paid to colluding dissenters, resubmitting garbage
/// below minStake, exiting before the slash, re-registering after a kick-out, splitting a stake.
contract SlashEconomicsTest is AttackBase {
    /// Two colluding verifiers reject an honest submitter's 11 000-wei bait job: the slash is bondBps of the fee
    /// (22 000 wei), not half a 20-ether stake, and the colluders get the same single share as for a release (the
    /// rest goes to the treasury), so rejecting honest work pays them nothing extra.
    function test_baitJobSlashIsFeeSizedAndNotPaidToDissenters() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 8, 3);
        bytes32 id = createJob(p, 11_000);
        Results memory truth = buildResults(id, 1, 8, "honest", one(procA));
        Results memory lie = buildResults(id, 1, 8, "lie", one(procA));
        uint256 fin0 = stakeOf(finalizer);
        uint256 t0 = escrow.credits(treasury);
        submit(id, finalizer, truth.root);
        verifyRound(id, truth, views3(lie, lie, truth), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open));
        assertEq(fin0 - stakeOf(finalizer), 22_000, "slash = 2 x fee");
        uint256 share = escrow.verifierShare(id);
        assertEq(share, 1000);
        uint256 maxCredit;
        for (uint256 i; i < 7; ++i) {
            uint256 c = escrow.credits(nodeAddr(i));
            if (c > maxCredit) maxCredit = c;
        }
        assertEq(maxCredit, share, "a dissenter gets one share, as for a release");
        assertEq(escrow.credits(treasury) - t0, 22_000 - 2 * share + share, "the rest of the slash and the honest verifier's forfeited share");
    }

    /// A node below minStake cannot submit, so it cannot block the honest finalizer by resubmitting garbage.
    function test_belowMinStakeCannotSubmit() public {
        bytes32 id = newJob(1, 2, 1);
        address poor = registerNode(30, GPU_A, 24, 1 ether);
        vm.prank(address(escrow));
        registry.slash(poor, 0.5 ether);
        Results memory garbage = buildResults(id, 1, 2, "garbage", one(poor));
        vm.prank(poor);
        escrow.commitResults(id, Encoding.resultCommitment(id, 0, garbage.root, "bafy-manifest", poor));
        vm.roll(block.number + 1);
        vm.prank(poor);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.InsufficientStake.selector, 0.5 ether, 1 ether));
        escrow.submitResults(id, garbage.root, "bafy-manifest", new address[](0));
    }

    /// A rejected resubmitter pays its bond every time: garbage is never free.
    function test_griefingResubmitterPaysEachTime() public {
        bytes32 id = newJob(1, 2, 2);
        Results memory truth = honestResults(id, 1, 2);
        uint256 att0 = stakeOf(attacker);
        for (uint256 r; r < 3; ++r) {
            Results memory garbage = buildResults(id, 1, 2, bytes32(r + 1), one(attacker));
            submit(id, attacker, garbage.root);
            verifyRound(id, garbage, views3(truth, truth, truth), noBlame(3));
        }
        assertEq(att0 - stakeOf(attacker), 3 * 2 * FEE);
    }

    /// A submitter cannot request exit and withdraw before its rejection slashes it: the bond is locked.
    function test_exitBeforeSlashIsBlocked() public {
        bytes32 id = newJob(1, 2, 1);
        Results memory fake = buildResults(id, 1, 2, "fake", one(attacker));
        submit(id, attacker, fake.root);
        vm.prank(attacker);
        registry.requestExit();
        vm.warp(block.timestamp + 2 days);
        vm.prank(attacker);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.StakeIsLocked.selector, 2 * FEE));
        registry.withdraw();
    }

    /// `n` verification tasks of `a` that time out (the escrow assigns and releases it with a timeout each).
    function timeOut(address a, uint256 n) internal {
        vm.startPrank(address(escrow));
        for (uint256 i; i < n; ++i) {
            registry.assign(a);
            registry.release(a, 0, 2, true, bytes32(0));
        }
        vm.stopPrank();
    }

    /// A kicked-out node cannot come back: neither its address nor its PeerId registers again.
    function test_kickOutIsPermanent() public {
        address a = registerNode(40, GPU_A, 24, 2 ether);
        timeOut(a, 10);
        assertTrue(registry.bannedAddress(a));
        vm.prank(a);
        registry.requestExit();
        vm.warp(block.timestamp + 2 days);
        vm.prank(a);
        registry.withdraw();
        vm.deal(a, 2 ether);
        vm.prank(a);
        vm.expectRevert(NodeRegistryBase.Banned.selector);
        registry.register{value: 2 ether}("fresh-peer", bytes32(0), "", GPU_A, 24);
        address b = address(0xB00);
        vm.deal(b, 2 ether);
        vm.prank(b);
        vm.expectRevert(NodeRegistryBase.Banned.selector);
        registry.register{value: 2 ether}(peerIdOf(40), bytes32(0), "", GPU_A, 24);
    }

    /// A node one missed task short of its kick-out cannot wipe its record by exiting and registering again: it
    /// comes back with its QoS window (score 0: no draw weight), and the next timeout bans it.
    function test_reRegisterKeepsQos() public {
        address a = registerNode(40, GPU_A, 24, 2 ether);
        timeOut(a, 9);
        vm.prank(a);
        registry.resume();
        (uint256 score, uint256 tasks,,, bool kicked) = registry.qosState(a);
        assertEq(score, 0);
        assertEq(tasks, 9);
        assertFalse(kicked);
        vm.prank(a);
        registry.requestExit();
        vm.warp(block.timestamp + 2 days);
        vm.prank(a);
        registry.withdraw();
        vm.deal(a, 2 ether);
        vm.prank(a);
        registry.register{value: 2 ether}(peerIdOf(40), bytes32(0), "", GPU_A, 24);
        (score, tasks,,, kicked) = registry.qosState(a);
        assertEq(score, 0);
        assertEq(tasks, 9);
        assertEq(registry.weightOf(a), 0);
        timeOut(a, 1);
        assertTrue(registry.bannedAddress(a));
    }

    /// Splitting one stake over several nodes gives no more selection weight in total.
    function test_splittingAStakeGainsNoWeight() public {
        uint256 whole = registry.selectionWeight(8 ether, 1000);
        uint256 split;
        for (uint256 i; i < 8; ++i) split += registry.selectionWeight(1 ether, 1000);
        assertLe(split, whole, "8 nodes of 1 ether weigh no more than one of 8 ether");
        uint256 halves = 2 * registry.selectionWeight(4 ether, 1000);
        assertLe(halves, whole, "2 nodes of 4 ether weigh no more than one of 8 ether");
    }
}
