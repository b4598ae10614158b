// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ProbeFixture} from "../utils/ProbeFixture.sol";
import {IncentivePool} from "../../src/IncentivePool.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";

/// Probes, QoS, pause / kick-out and the IncentivePool, from an attacker who read the code (the tenth audit, 2026-12-05).
/// This contract plays the escrow (assign / release / slash), as test/Probes.t.sol and test/IncentivePool.t.sol do.
/// Each test asserts the defended behaviour.
contract ProbesAndSharesTest is ProbeFixture {
    IncentivePool pool;
    uint256 constant PERIOD = 7 days;

    function setUp() public override {
        super.setUp();
        pool = new IncentivePool(reg, 2500, 2500, 5000, PERIOD);
        vm.deal(address(this), 1_000 ether);
    }

    function answer(address a) internal {
        uint256 nonce = solve(a);
        vm.prank(a);
        reg.answerProbe(nonce);
    }

    function openProbe(address a) internal view returns (uint256 blk) {
        (, blk,) = reg.probeOf(a);
    }

    function later(uint256 secs) internal {
        vm.warp(block.timestamp + secs);
        vm.roll(block.number + secs / 12 + 1);
    }

    /// Attack: a node gets its stake 1 wei under minStake (a self-inflicted slash: e.g. its own submission's
    /// draw-window penalty, drawPenaltyBps of a bond of 2 x a tiny fee), then goes offline for a month. Under
    /// minStake it is out of the draw and, since _probeDue needs _eligible, never probed again: its QoS score is
    /// frozen at 2000 and nothing pauses it, so IncentivePool.shareOf (which checks registered / paused / exiting /
    /// kicked out only) keeps paying it R + B, and poke by anyone cannot take it down.
    /// Defence expected: a node that cannot be drawn or probed holds no share (as a paused node).
    function test_underMinStakeNodeHoldsNoShareWhileOffline() public {
        address honest = register(1, 2 ether);
        address dodger = register(2, 1 ether);
        // both answer one probe fast: score 2000
        later(INTERVAL);
        assertEq(reg.probeNext(16), 2);
        answer(honest);
        answer(dodger);
        assertEq(reg.scoreOf(dodger), 2000);
        // the dodger's stake goes 1 wei under minStake (here the escrow's slash, in the field a self-inflicted penalty)
        reg.slash(dodger, 1);
        assertFalse(reg.isEligible(dodger));
        pool.poke(honest);
        pool.poke(dodger);
        pool.fund{value: 30 ether}();
        // 30 days: the honest node answers a probe each day, the dodger is offline
        for (uint256 d; d < 30; ++d) {
            later(1 days);
            reg.probeNext(16);
            if (openProbe(honest) != 0) answer(honest);
            assertEq(openProbe(dodger), 0, "dodger never probed");
        }
        pool.poke(dodger); // anyone's poke does not take it down
        assertEq(reg.scoreOf(dodger), 2000, "score frozen at its best");
        // defended: the dodger holds no share while it can be neither drawn nor probed
        assertEq(pool.shareOf(dodger), 0, "an undrawable, unprobed node holds a share");
        (uint256 recorded,) = pool.accountOf(dodger);
        assertEq(recorded, 0, "and the poke recorded none");
    }

    /// Attack: front-run the keeper and close a victim's probe that it answers in the last block of its window.
    /// Defence expected: the answer at from + PROBE_WINDOW stands; probeNext closes only from + PROBE_WINDOW + 1.
    function test_answerInLastBlockOfWindowIsNotMissed() public {
        address v = register(1, 2 ether);
        later(INTERVAL);
        assertEq(reg.probeNext(16), 1);
        uint256 from = openProbe(v);
        vm.roll(from + reg.PROBE_WINDOW());
        assertEq(reg.probeNext(16), 0, "closed inside the window");
        answer(v);
        assertFalse(reg.nodeInfo(v).paused);
        assertEq(reg.scoreOf(v), 400);
    }

    /// Attack: an attacker spams probeNext to probe an honest node more often (each probe a chance to miss) or
    /// right after it verified. Defence expected: a node is due only after probeInterval without a scored task.
    function test_scanSpamCannotProbeBeforeDue() public {
        address v = register(1, 2 ether);
        for (uint256 i; i < 10; ++i) {
            later(INTERVAL / 20);
            assertEq(reg.probeNext(100), 0);
        }
        // a verification scored just before the interval ends restarts its clock
        later(INTERVAL / 2 - 60);
        assertTrue(reg.assign(v));
        reg.release(v, 1000, 0, true, bytes32(0));
        later(INTERVAL - 60);
        assertEq(reg.probeNext(100), 0);
        assertEq(openProbe(v), 0);
    }

    /// Attack: a node about to be probed pauses while it is offline and resumes when it is back, keeping a fresh
    /// score while its share is recorded high. Defence expected: a resumed node whose interval has passed is due at
    /// once, and a paused node is poked to share 0 by anyone.
    function test_pauseAroundProbeDoesNotDodgeIt() public {
        address v = register(1, 2 ether);
        pool.poke(v);
        assertGt(pool.shareOf(v), 0);
        vm.prank(v);
        reg.pause();
        pool.poke(v); // anyone
        (uint256 recorded,) = pool.accountOf(v);
        assertEq(recorded, 0);
        later(5 * INTERVAL);
        assertEq(reg.probeNext(16), 0, "paused: not probed");
        vm.prank(v);
        reg.resume();
        assertEq(reg.probeNext(16), 1, "due at once on resume");
        assertGt(openProbe(v), 0);
    }

    /// Attack: a node with an open probe it cannot answer requests exit (or pauses) and withdraws, dodging the 0.
    /// Defence expected: withdraw reverts while the probe is open (busy) and the miss is recorded and pauses.
    function test_openProbeCannotBeDodgedByExit() public {
        address v = register(1, 2 ether);
        later(INTERVAL);
        assertEq(reg.probeNext(16), 1);
        vm.prank(v);
        reg.requestExit();
        vm.warp(block.timestamp + 2 days);
        vm.prank(v);
        vm.expectRevert(NodeRegistryBase.NodeIsBusy.selector);
        reg.withdraw();
        vm.roll(block.number + reg.PROBE_WINDOW() + 1);
        assertEq(reg.probeNext(16), 1);
        (uint256 score, uint256 tasks,, uint256 timeouts,) = reg.qosState(v);
        assertEq(score, 0);
        assertEq(tasks, 1);
        assertEq(timeouts, 2);
        assertTrue(reg.nodeInfo(v).paused);
        // and the 0 stays with the address through a re-registration
        vm.prank(v);
        reg.withdraw();
        vm.prank(v);
        reg.register{value: 2 ether}(string(abi.encodePacked("peer-", bytes32(uint256(1)))), bytes32(0), "", GPU, 16);
        assertEq(reg.scoreOf(v), 0);
    }

    /// Attack: an attacker answers a victim's probe, or answers its own probe with the victim's nonce.
    /// Defence expected: the challenge and the answer's hash bind the node; only the victim's own answer counts.
    function test_probeAnswerBoundToItsNode() public {
        address v = register(1, 2 ether);
        address a = register(2, 2 ether);
        later(INTERVAL);
        assertEq(reg.probeNext(16), 2);
        uint256 vn = solve(v);
        // the attacker submits the victim's nonce as its own answer: almost surely wrong for its own challenge
        if (uint256(keccak256(abi.encode(_challenge(a), a, vn))) >> (256 - reg.PROBE_DIFFICULTY()) != 0) {
            vm.prank(a);
            vm.expectRevert(NodeRegistryBase.BadProbeAnswer.selector);
            reg.answerProbe(vn);
        }
        // the victim's probe is still open and its answer scores it
        assertGt(openProbe(v), 0);
        vm.prank(v);
        reg.answerProbe(vn);
        assertEq(reg.scoreOf(v), 2000);
    }

    function _challenge(address a) internal view returns (bytes32 c) {
        (c,,) = reg.probeOf(a);
    }
}
