// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {NodeRegistryFixture} from "./utils/NodeRegistryFixture.sol";
import {NodeRegistryBase} from "../src/registry/NodeRegistryBase.sol";
import {drawRequest} from "./utils/DrawRequests.sol";

/// Registry tests of the escrow-only API: draw, assign, release, lock and slash, the busy state, scores and QoS
/// kick-out they drive, and draw frequencies; this contract plays the escrow.
contract NodeRegistryEscrowApiTest is NodeRegistryFixture {
    function req(bytes32 e, uint8 need, uint32 minVram, bytes32 gpu, bytes32 modelId, bool identical, address excl)
        internal
        pure
        returns (NodeRegistryBase.DrawRequest memory)
    {
        return drawRequest(e, bytes32(uint256(7)), need, minVram, gpu, modelId, identical, excl);
    }

    // ------------------------------------------------ escrow-only API

    function test_onlyEscrow() public {
        address a = reg1(1, GPU_A, 8, 2 ether);
        vm.startPrank(address(0xBAD));
        vm.expectRevert(NodeRegistryBase.OnlyEscrow.selector);
        reg.assign(a);
        vm.expectRevert(NodeRegistryBase.OnlyEscrow.selector);
        reg.release(a, 0, 0, true, bytes32(0));
        vm.expectRevert(NodeRegistryBase.OnlyEscrow.selector);
        reg.slash(a, 1);
        vm.expectRevert(NodeRegistryBase.OnlyEscrow.selector);
        reg.lock(a, 1);
        vm.expectRevert(NodeRegistryBase.OnlyEscrow.selector);
        reg.unlock(a, 1);
        vm.expectRevert(NodeRegistryBase.OnlyEscrow.selector);
        reg.draw(req(bytes32(uint256(1)), 1, 0, bytes32(0), bytes32(0), false, address(0)));
        vm.stopPrank();
    }

    function test_drawMarksBusyAndDistinct() public {
        for (uint256 i; i < 5; ++i) reg1(i, GPU_A, 16, 2 ether);
        (address[] memory d,,) = reg.draw(req(keccak256("e"), 5, 8, bytes32(0), bytes32(0), false, address(0)));
        assertEq(d.length, 5);
        for (uint256 i; i < 5; ++i) {
            assertTrue(reg.nodeInfo(d[i]).busy);
            for (uint256 j; j < i; ++j) assertTrue(d[i] != d[j]);
        }
        assertEq(reg.totalWeight(), 0);
        (d,,) = reg.draw(req(keccak256("e2"), 1, 8, bytes32(0), bytes32(0), false, address(0)));
        assertEq(d.length, 0);
    }

    /// Busy nodes leave the trees until released: draws never return them, the views count only idle eligible
    /// weight, and slashes, pauses and releases of busy nodes put back the right weight.
    function test_busyNodesLeaveTheTrees() public {
        address a = reg1(1, GPU_A, 16, 2 ether);
        address b = reg1(2, GPU_A, 16, 4 ether);
        address c = reg1(3, GPU_B, 16, 6 ether);
        uint256 wa = reg.weightOf(a);
        uint256 wb = reg.weightOf(b);
        uint256 wc = reg.weightOf(c);
        assertTrue(reg.assign(a));
        assertTrue(reg.assign(c));
        assertEq(reg.weightOf(a), 0);
        assertEq(reg.totalWeight(), wb);
        assertEq(reg.groupWeight(GPU_A), wb);
        assertEq(reg.groupWeight(GPU_B), 0);
        // many draws of one verifier: only b is ever drawn
        for (uint256 i; i < 20; ++i) {
            (address[] memory d,,) = reg.draw(req(keccak256(abi.encode(i)), 1, 0, bytes32(0), bytes32(0), false, address(0)));
            assertEq(d.length, 1);
            assertEq(d[0], b);
            reg.release(b, 0, 0, false, bytes32(0));
        }
        // a group with only busy weight yields nothing, at once
        (address[] memory none, uint32 ctr,) =
            reg.draw(req(keccak256("g"), 1, 0, GPU_B, bytes32(0), false, address(0)));
        assertEq(none.length, 0);
        assertEq(uint256(ctr), 0);
        // state changes of busy nodes: slash a (stake 2 -> 1 ether), pause c, then release both
        reg.slash(a, 1 ether);
        vm.prank(c);
        reg.pause();
        assertEq(reg.totalWeight(), wb);
        assertTrue(reg.release(a, 1000, 0, true, bytes32(0)));
        assertFalse(reg.release(c, 1000, 0, true, bytes32(0)));
        uint256 wa2 = reg.weightOf(a);
        assertTrue(wa2 < wa && wa2 > 0);
        assertEq(reg.weightOf(c), 0);
        assertEq(reg.totalWeight(), wa2 + wb);
        assertEq(reg.groupWeight(GPU_A), wa2 + wb);
        assertEq(reg.groupWeight(GPU_B), 0);
        vm.prank(c);
        reg.resume();
        assertEq(reg.weightOf(c), wc);
        assertEq(reg.totalWeight(), wa2 + wb + wc);
    }

    /// When only the submitter (and busy nodes) are left, the draw stops at once: the submitter's weight is taken
    /// out of the draw, so one stream position per verifier drawn and none for the rest.
    function test_drawStopsWhenOnlySubmitterLeft() public {
        address sub = reg1(1, GPU_A, 16, 2 ether);
        for (uint256 i = 2; i < 6; ++i) reg1(i, GPU_A, 16, 2 ether);
        (address[] memory d, uint32 ctr,) =
            reg.draw(req(keccak256("e"), 8, 0, bytes32(0), bytes32(0), false, sub));
        assertEq(d.length, 4);
        for (uint256 i; i < 4; ++i) assertTrue(d[i] != sub);
        assertFalse(reg.nodeInfo(sub).busy);
        assertEq(uint256(ctr), 4);
        (d, ctr,) = reg.draw(req(keccak256("e2"), 1, 0, bytes32(0), bytes32(0), false, sub));
        assertEq(d.length, 0);
        assertEq(uint256(ctr), 0);
    }

    function test_drawRespectsVramAndExclude() public {
        address small = reg1(1, GPU_A, 8, 10 ether);
        address sub = reg1(2, GPU_A, 80, 10 ether);
        address ok = reg1(3, GPU_A, 80, 1 ether);
        (address[] memory d,,) = reg.draw(req(keccak256("e"), 1, 24, bytes32(0), bytes32(0), false, sub));
        assertEq(d.length, 1);
        assertEq(d[0], ok);
        assertFalse(reg.nodeInfo(small).busy);
    }

    function test_drawGroupAndIdentical() public {
        reg1(1, GPU_A, 24, 2 ether);
        reg1(2, GPU_A, 24, 2 ether);
        address b1 = reg1(3, GPU_B, 80, 2 ether);
        (address[] memory d,, bytes32 chosen) =
            reg.draw(req(keccak256("e"), 1, 0, GPU_B, bytes32(0), false, address(0)));
        assertEq(d[0], b1);
        assertEq(chosen, GPU_B);
        (d,, chosen) = reg.draw(req(keccak256("f"), 2, 0, bytes32(0), bytes32(0), true, address(0)));
        assertEq(chosen, GPU_A); // B has no idle node left
        assertEq(d.length, 2);
    }

    function test_releaseRecordsScoreAndModel() public {
        address a = reg1(1, GPU_A, 8, 2 ether);
        assertTrue(reg.assign(a));
        assertFalse(reg.assign(a)); // busy
        bool avail = reg.release(a, 2000, 0, true, MODEL_X);
        assertTrue(avail);
        (uint256 score, uint256 tasks,,,) = reg.qosState(a);
        assertEq(score, 2000);
        assertEq(tasks, 1);
        assertEq(reg.nodeInfo(a).lastModel, MODEL_X);
        assertEq(reg.weightOf(a), reg.selectionWeight(2 ether, 2000));
    }

    function test_kickOutAfterLowWindow() public {
        address a = reg1(1, GPU_A, 8, 2 ether);
        for (uint256 i; i < 10; ++i) {
            reg.assign(a);
            reg.release(a, 0, 2, true, bytes32(0));
        }
        (uint256 score,,, uint256 to, bool kicked) = reg.qosState(a);
        assertEq(score, 0);
        assertEq(to, 20);
        assertTrue(kicked);
        assertEq(reg.weightOf(a), 0);
        assertFalse(reg.isActive(a));
        assertEq(reg.timeoutScore(a), 0);
    }

    function test_slash() public {
        address a = reg1(1, GPU_A, 8, 2 ether);
        uint256 b0 = address(this).balance;
        uint256 amt = reg.slash(a, 1 ether);
        assertEq(amt, 1 ether);
        assertEq(address(this).balance - b0, 1 ether);
        assertEq(reg.nodeInfo(a).stake, 1 ether);
        reg.slash(a, 0.5 ether); // now 0.5 ether < minStake -> out of selection
        assertEq(reg.slash(a, 5 ether), 0.5 ether); // never more than the stake
        assertEq(reg.weightOf(a), 0);
        assertFalse(reg.isEligible(a));
    }

    /// A slash leaves the bonds locked as they were: each is given back by the unlock of its own job, so a slash
    /// for one job (or a verifier penalty) before another job's unlock cannot free a third job's bond.
    function test_slashKeepsOtherBondsLocked() public {
        address a = reg1(1, GPU_A, 8, 4 ether);
        reg.lock(a, 2 ether); // job x
        reg.lock(a, 2 ether); // job y
        reg.slash(a, 0.5 ether); // a verifier penalty elsewhere
        assertEq(reg.lockedStake(a), 4 ether, "bonds owed beyond the stake stay locked");
        reg.unlock(a, 2 ether); // job x released
        assertEq(reg.lockedStake(a), 2 ether, "job y's bond is still locked");
    }

    function test_scoresViews() public {
        address a = reg1(1, GPU_A, 20, 2 ether);
        reg1(2, GPU_A, 80, 2 ether);
        assertEq(reg.vramScore(a), 250000);
        assertEq(reg.timeoutScore(a), 0); // the longest timeout (never set): P = 0
        reg.assign(a);
        reg.release(a, 1000, 1, true, bytes32(0));
        assertEq(reg.timeoutScore(a), 0); // P follows the node's timeout setting, not its timed-out rounds
        (bytes32 g, uint32 v) = reg.nodeHardware(a);
        assertEq(g, GPU_A);
        assertEq(uint256(v), 20);
        assertEq(reg.groupsLength(), 1);
        assertEq(reg.groupCountTotal(), 2);
    }

    /// Statistical test: draw frequencies are proportional to weight (and to M*W with a model multiplier).
    function test_drawFrequenciesProportional() public {
        address a = reg1(1, GPU_A, 8, 1 ether); // S = 100000
        address b = reg1(2, GPU_A, 8, 4 ether); // S = 400000
        address c = reg1(3, GPU_A, 8, 10 ether); // S = 1e6
        uint256 wa = reg.weightOf(a);
        uint256 wb = reg.weightOf(b);
        uint256 wc = reg.weightOf(c);
        // c has MODEL_X as last model (it revealed a verification of a MODEL_X job) -> M = 2
        reg.release(c, 0, 0, false, MODEL_X);
        uint256 n = 3000;
        uint256[3] memory hits;
        for (uint256 i; i < n; ++i) {
            (address[] memory d,,) = reg.draw(req(keccak256(abi.encode(i)), 1, 0, bytes32(0), MODEL_X, false, address(0)));
            if (d.length == 0) continue;
            address x = d[0];
            if (x == a) ++hits[0];
            else if (x == b) ++hits[1];
            else ++hits[2];
            reg.release(x, 0, 0, false, bytes32(0));
        }
        uint256 tw = wa + wb + 2 * wc;
        uint256 got = hits[0] + hits[1] + hits[2];
        uint256[3] memory w = [wa, wb, 2 * wc];
        for (uint256 i; i < 3; ++i) {
            uint256 expect = got * w[i] / tw;
            uint256 tol = expect / 10 + 30; // ~10% + slack
            assertLe(hits[i], expect + tol, "too many hits");
            assertGe(hits[i] + tol, expect, "too few hits");
        }
    }
}
