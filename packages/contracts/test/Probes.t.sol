// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Vm} from "./utils/Test.sol";
import {ProbeFixture} from "./utils/ProbeFixture.sol";
import {NodeRegistryBase} from "../src/registry/NodeRegistryBase.sol";

/// Probe tasks; this contract plays the escrow (release with a timed-out task, onNodeAvailable).
contract ProbesTest is ProbeFixture {
    function register(uint256 i) internal returns (address a) {
        a = register(i, 2 ether);
    }

    function probedIn(Vm.Log[] memory logs, address a) internal pure returns (uint256 n) {
        bytes32 sig = keccak256("ProbeAssigned(address,bytes32,uint256)");
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics[0] == sig && address(uint160(uint256(logs[i].topics[1]))) == a) ++n;
        }
    }

    function test_probesReachEveryActiveNodeOncePerInterval() public {
        uint256 n = 40;
        for (uint256 i; i < n; ++i) register(i);
        vm.prank(node(3));
        reg.pause(); // not active: never probed
        // not due within the interval
        assertEq(reg.probeNext(16), 0);
        for (uint256 window; window < 3; ++window) {
            vm.warp(block.timestamp + INTERVAL);
            vm.roll(block.number + 1);
            vm.recordLogs();
            // ceil(40 / 16) = 3 scans of 16 cover every node once
            uint256 work;
            for (uint256 s; s < 3; ++s) work += reg.probeNext(16);
            Vm.Log[] memory logs = vm.getRecordedLogs();
            assertEq(work, n - 1);
            for (uint256 i; i < n; ++i) assertEq(probedIn(logs, node(i)), i == 3 ? 0 : 1);
            // a probed node is out of the draw until it answers
            assertTrue(reg.nodeInfo(node(0)).busy);
            assertEq(reg.weightOf(node(0)), 0);
            for (uint256 i; i < n; ++i) {
                if (i == 3) continue;
                uint256 nonce = solve(node(i));
                vm.prank(node(i));
                reg.answerProbe(nonce);
            }
            assertFalse(reg.nodeInfo(node(0)).busy);
            // answered: the next scans find nothing until the next interval
            for (uint256 s; s < 3; ++s) assertEq(reg.probeNext(16), 0);
        }
        // three fast answers: three task scores of 2000
        (, uint256 tasks,,,) = reg.qosState(node(0));
        assertEq(tasks, 3);
        assertEq(reg.scoreOf(node(0)), 2000);
    }

    function test_answerSpeedIsScored() public {
        address a = register(1);
        address b = register(2);
        address c = register(3);
        available = 0;
        vm.warp(block.timestamp + INTERVAL);
        assertEq(reg.probeNext(16), 3);
        uint256 window = reg.PROBE_WINDOW();
        uint256[3] memory delays = [uint256(1), window / 2, window];
        address[3] memory nodes = [a, b, c];
        uint256[3] memory expected = [uint256(2000), 1000, 400];
        uint256 start = block.number;
        for (uint256 i; i < 3; ++i) {
            vm.roll(start + delays[i]);
            uint256 nonce = solve(nodes[i]);
            vm.expectEmit(true, false, false, true);
            emit NodeRegistryBase.ProbeAnswered(nodes[i], delays[i], expected[i]);
            vm.prank(nodes[i]);
            reg.answerProbe(nonce);
            assertEq(reg.scoreOf(nodes[i]), expected[i]);
        }
        assertEq(available, 3); // each answer frees the node for a queued verification
    }

    function test_badAnswersRevertAndNothingChanges() public {
        address a = register(1);
        vm.prank(a);
        vm.expectRevert(NodeRegistryBase.NoOpenProbe.selector);
        reg.answerProbe(0);
        vm.warp(block.timestamp + INTERVAL);
        reg.probeNext(16);
        uint256 good = solve(a);
        uint256 bad = good;
        (bytes32 challenge,,) = reg.probeOf(a);
        while (uint256(keccak256(abi.encode(challenge, a, bad))) >> (256 - reg.PROBE_DIFFICULTY()) == 0) ++bad;
        vm.prank(a);
        vm.expectRevert(NodeRegistryBase.BadProbeAnswer.selector);
        reg.answerProbe(bad);
        // another node cannot answer for it (the answer binds the node)
        address b = register(2);
        vm.prank(b);
        vm.expectRevert(NodeRegistryBase.NoOpenProbe.selector);
        reg.answerProbe(good);
        (, uint256 from,) = reg.probeOf(a);
        uint256 deadline = from + reg.PROBE_WINDOW();
        vm.roll(deadline + 1);
        vm.prank(a);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.ProbeExpired.selector, deadline));
        reg.answerProbe(good);
        assertEq(reg.scoreOf(a), 1000); // nothing recorded yet
    }

    function test_missedProbeScoresZeroAndPauses() public {
        address a = register(1);
        vm.warp(block.timestamp + INTERVAL);
        assertEq(reg.probeNext(16), 1);
        (, uint256 from,) = reg.probeOf(a);
        vm.roll(from + reg.PROBE_WINDOW());
        assertEq(reg.probeNext(16), 0); // still inside the window
        vm.roll(from + reg.PROBE_WINDOW() + 1);
        vm.expectEmit(true, false, false, false);
        emit NodeRegistryBase.ProbeMissed(a);
        assertEq(reg.probeNext(16), 1);
        NodeRegistryBase.NodeView memory v = reg.nodeInfo(a);
        assertTrue(v.paused && !v.busy);
        assertEq(v.score, 0);
        (,,, uint256 timeouts,) = reg.qosState(a);
        assertEq(timeouts, 2);
        // paused: not probed again until it resumes
        vm.warp(block.timestamp + INTERVAL);
        assertEq(reg.probeNext(16), 0);
    }

    function test_aNodeAtWeightZeroEarnsItsWayBack() public {
        address a = register(1);
        // silent for a whole verification: score 0 and paused (the escrow's release)
        reg.assign(a);
        reg.release(a, 0, 2, true, bytes32(0));
        vm.prank(a);
        reg.resume();
        assertEq(reg.scoreOf(a), 0);
        assertEq(reg.weightOf(a), 0); // W = 0: no draw can pick it
        // its task was just scored, but at weight 0 it is due a probe at once, not an interval later (the draws of
        // a small network waited for it)
        assertEq(reg.probeNext(16), 1);
        uint256 nonce = solve(a);
        vm.roll(block.number + 1);
        vm.prank(a);
        reg.answerProbe(nonce);
        assertEq(reg.scoreOf(a), 1000); // (0 + 2000) / 2
        assertTrue(reg.weightOf(a) > 0);
        assertEq(reg.weightOf(a), reg.selectionWeight(2 ether, 1000));
        // scored again: not probed again before an interval
        assertEq(reg.probeNext(16), 0);
        vm.warp(block.timestamp + INTERVAL - 1);
        assertEq(reg.probeNext(16), 0);
    }

    function test_aBusyVerifierIsNotProbedAndItsTaskCountsAsActivity() public {
        address a = register(1);
        vm.warp(block.timestamp + INTERVAL);
        reg.assign(a); // drawn as a verifier
        assertEq(reg.probeNext(16), 0);
        reg.release(a, 2000, 0, true, bytes32(0));
        assertEq(reg.probeNext(16), 0); // a task was just scored
        vm.warp(block.timestamp + INTERVAL);
        assertEq(reg.probeNext(16), 1);
    }

    function test_scanIsBoundedAndRoundRobin() public {
        for (uint256 i; i < 10; ++i) register(i);
        vm.warp(block.timestamp + INTERVAL);
        assertEq(reg.probeNext(4), 4);
        assertEq(reg.probeCursor(), 4);
        assertEq(reg.probeNext(4), 4);
        assertEq(reg.probeNext(4), 2); // wraps: 8, 9, then 0 and 1 (already probed)
        assertEq(reg.probeCursor(), 2);
        assertEq(reg.probeNext(100), 0); // maxScan is capped at the list
    }
}
