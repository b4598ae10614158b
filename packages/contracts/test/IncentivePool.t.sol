// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {NodeRegistry} from "../src/NodeRegistry.sol";
import {IncentivePool} from "../src/IncentivePool.sol";
import {UncheckedPeerIdRegistry} from "./utils/UncheckedPeerIdRegistry.sol";
import {NodeRegistryBase} from "../src/registry/NodeRegistryBase.sol";

/// A node that re-enters claim() when it is paid.
contract GreedyNode {
    IncentivePool pool;
    bool reentered;

    constructor(IncentivePool p) {
        pool = p;
    }

    function join(NodeRegistry reg) external payable {
        reg.register{value: msg.value}("peer-greedy", bytes32(0), "", keccak256("cpu"), 16);
    }

    function claim() external returns (uint256) {
        return pool.claim();
    }

    receive() external payable {
        if (!reentered) {
            reentered = true;
            pool.claim();
        }
    }
}

/// The incentive split by a weighted sum of R, P and B; this contract plays the escrow (assign/release set QoS).
contract IncentivePoolTest is Test {
    NodeRegistry reg;
    IncentivePool pool;
    bytes32 constant GPU = keccak256("cpu");
    uint256 constant PERIOD = 1 days;
    // the weights the deployment uses by default (contracts/src/constants.ts)
    uint256 constant WR = 2500;
    uint256 constant WP = 2500;
    uint256 constant WB = 5000;

    function onNodeAvailable(address) external {}

    receive() external payable {}

    function setUp() public {
        vm.warp(1_700_000_000);
        vm.roll(100);
        reg = new UncheckedPeerIdRegistry(
            NodeRegistryBase.Params({minStake: 1 ether, stakeCap: 10 ether, exitCooldown: 1 days, maxDrawAttempts: 64, probeInterval: 1 days})
        );
        reg.setEscrow(address(this));
        pool = new IncentivePool(reg, WR, WP, WB, PERIOD);
        vm.deal(address(this), 10_000_000 ether);
    }

    function node(uint256 i) internal pure returns (address) {
        return address(uint160(0xB000 + i));
    }

    function register(uint256 i, uint32 vram) internal returns (address a) {
        a = node(i);
        vm.deal(a, 3 ether);
        vm.prank(a);
        reg.register{value: 2 ether}(string(abi.encodePacked("peer-", bytes32(i))), bytes32(0), "", GPU, vram);
    }

    /// One verification task of `a` with this task score and timed-out rounds.
    function task(address a, uint256 score, uint256 timedOut) internal {
        assertTrue(reg.assign(a));
        reg.release(a, score, timedOut, true, bytes32(0));
        // a node silent for a whole task is paused (most likely offline); this one is back at once
        NodeRegistryBase.NodeView memory v = reg.nodeInfo(a);
        if (v.paused && !v.kickedOut) {
            vm.prank(a);
            reg.resume();
        }
    }

    /// The share by the spec's formula, written out here: R = V / maxV, P = (maxO - O) / (maxO - Omin) with O the
    /// node's timeout setting in percent of a commit window (Omin 25, maxO 100), B = score / 2000.
    function expectedShare(uint256 vram, uint256 maxVram, uint256 timeoutPct, uint256 score) internal pure returns (uint256) {
        uint256 r = vram * 1e6 / maxVram;
        uint256 p = (100 - timeoutPct) * 1e6 / 75;
        uint256 b = score * 1e6 / 2000;
        return (WR * r + WP * p + WB * b) / 10_000;
    }

    function claimOf(address a) internal returns (uint256) {
        vm.prank(a);
        return pool.claim();
    }

    function test_sharesFollowTheWeightedSum() public {
        address a = register(1, 80);
        address b = register(2, 40);
        address c = register(3, 16);
        task(a, 2000, 0); // first in both rounds
        task(b, 1000, 0); // second in both rounds
        task(c, 0, 2); // timed out in both rounds
        task(c, 1200, 0); // first, then third
        vm.prank(a);
        reg.setTimeout(50); // its 2 ether stake covers half a commit window (minStake 1 ether x 100 / 50)
        vm.prank(b);
        reg.setTimeout(80);
        pool.poke(a);
        pool.poke(b);
        pool.poke(c);
        uint256 sa = expectedShare(80, 80, 50, 2000);
        uint256 sb = expectedShare(40, 80, 80, 1000);
        uint256 sc = expectedShare(16, 80, 100, 600);
        (uint256 ra,) = pool.accountOf(a);
        (uint256 rb,) = pool.accountOf(b);
        (uint256 rc,) = pool.accountOf(c);
        assertEq(ra, sa);
        assertEq(rb, sb);
        assertEq(rc, sc);
        assertEq(pool.totalShares(), sa + sb + sc);

        uint256 funded = 90 ether;
        pool.fund{value: funded}();
        vm.warp(block.timestamp + PERIOD + 1);
        uint256 total = sa + sb + sc;
        uint256 ca = claimOf(a);
        uint256 cb = claimOf(b);
        uint256 cc = claimOf(c);
        // each gets funded * share / total, up to rounding (a few wei)
        assertApproxEqAbs(ca, funded * sa / total, 1e6);
        assertApproxEqAbs(cb, funded * sb / total, 1e6);
        assertApproxEqAbs(cc, funded * sc / total, 1e6);
        assertLe(ca + cb + cc, funded);
        assertGt(ca, cb);
        assertGt(cb, cc);
    }

    function test_earnsByTheTimeItHeldAShare() public {
        address a = register(1, 16);
        pool.poke(a);
        pool.fund{value: 40 ether}();
        vm.warp(block.timestamp + PERIOD / 2);
        // registering just before (or after) a funding does not buy the funding: only the time held counts
        address b = register(2, 16);
        pool.poke(b);
        vm.warp(block.timestamp + PERIOD);
        uint256 ca = claimOf(a);
        uint256 cb = claimOf(b);
        assertApproxEqAbs(ca, 30 ether, 1e6);
        assertApproxEqAbs(cb, 10 ether, 1e6);
    }

    function test_aFallenNodeIsPokedDownByAnyone() public {
        address a = register(1, 16);
        address b = register(2, 16);
        pool.poke(a);
        pool.poke(b);
        pool.fund{value: 40 ether}();
        vm.warp(block.timestamp + PERIOD / 2);
        vm.prank(b);
        reg.pause();
        // b keeps its old share until someone records the new one; a does it, and b earns nothing from then on
        vm.prank(a);
        assertEq(pool.poke(b), 0);
        vm.warp(block.timestamp + PERIOD);
        assertApproxEqAbs(claimOf(a), 30 ether, 1e6);
        assertApproxEqAbs(claimOf(b), 10 ether, 1e6);
    }

    function test_kickedOutAndExitingNodesHoldNoShare() public {
        address a = register(1, 16);
        address b = register(2, 16);
        for (uint256 i; i < 10; ++i) task(a, 0, 2);
        (,,,, bool kicked) = reg.qosState(a);
        assertTrue(kicked);
        assertEq(pool.shareOf(a), 0);
        vm.prank(b);
        reg.requestExit();
        assertEq(pool.shareOf(b), 0);
        assertEq(pool.shareOf(node(9)), 0); // never registered
    }

    function test_fundsStreamedWhileNobodyHeldAShareGoToTheNextFunding() public {
        pool.fund{value: 10 ether}();
        vm.warp(block.timestamp + PERIOD / 2);
        address a = register(1, 16);
        pool.poke(a);
        vm.warp(block.timestamp + PERIOD);
        // the first half went to nobody: it is carried into the next funding, not lost
        pool.fund{value: 10 ether}();
        vm.warp(block.timestamp + PERIOD);
        assertApproxEqAbs(claimOf(a), 20 ether, 1e6);
    }

    function test_aSecondFundingExtendsTheStream() public {
        address a = register(1, 16);
        pool.poke(a);
        pool.fund{value: 10 ether}();
        vm.warp(block.timestamp + PERIOD / 2);
        pool.fund{value: 10 ether}();
        assertEq(pool.periodEnd(), block.timestamp + PERIOD);
        vm.warp(block.timestamp + PERIOD / 2);
        // 5 of the first funding, then (5 + 10) over a new period: half of it so far
        assertApproxEqAbs(claimOf(a), 12.5 ether, 1e6);
    }

    /// A smaller funding joins the running period; a griefer's fundings of 1 wei an hour cannot stretch a sponsor's
    /// period of 7 ETH over the periods after it (each used to re-spread what was left over a new period: of a week's
    /// 7 ETH, 4.43 reached the node within the week).
    function test_smallFundingsJoinTheRunningPeriod() public {
        address a = register(1, 16);
        pool.poke(a);
        pool.fund{value: 7 ether}();
        uint256 end = pool.periodEnd();
        for (uint256 h; h < PERIOD / 1 hours - 1; ++h) {
            vm.warp(block.timestamp + 1 hours);
            pool.fund{value: 1}();
        }
        assertEq(pool.periodEnd(), end, "the period ends when it did");
        vm.warp(end);
        assertApproxEqAbs(claimOf(a), 7 ether + PERIOD / 1 hours - 1, 1e6); // all of it within the period
        vm.warp(block.timestamp + 2 hours);
        pool.fund{value: 1 ether}();
        assertEq(pool.periodEnd(), block.timestamp + PERIOD, "a funding after the period starts a new one");
    }

    function test_claimPaysOnlyTheCaller() public {
        address a = register(1, 16);
        pool.poke(a);
        pool.fund{value: 10 ether}();
        vm.warp(block.timestamp + PERIOD);
        address thief = address(0xBAD);
        vm.prank(thief);
        vm.expectRevert(IncentivePool.NothingToClaim.selector);
        pool.claim();
        // poking another node settles its account; it pays nobody
        uint256 before = thief.balance;
        vm.prank(thief);
        pool.poke(a);
        assertEq(thief.balance, before);
        assertApproxEqAbs(claimOf(a), 10 ether, 1e6);
        vm.prank(a);
        vm.expectRevert(IncentivePool.NothingToClaim.selector);
        pool.claim();
    }

    function test_aReenteringClaimIsRefused() public {
        GreedyNode g = new GreedyNode(pool);
        g.join{value: 2 ether}(reg);
        pool.poke(address(g));
        pool.fund{value: 10 ether}();
        vm.warp(block.timestamp + PERIOD);
        // the re-entered claim finds nothing owed, so the payment (and the whole claim) fails
        vm.expectRevert(IncentivePool.TransferFailed.selector);
        g.claim();
        assertEq(address(pool).balance, 10 ether);
    }

    function test_invalidParametersAndEmptyFundingRevert() public {
        vm.expectRevert(IncentivePool.InvalidWeights.selector);
        new IncentivePool(reg, 5000, 5000, 1, PERIOD);
        vm.expectRevert(IncentivePool.InvalidPeriod.selector);
        new IncentivePool(reg, WR, WP, WB, 0);
        vm.expectRevert(IncentivePool.NoValue.selector);
        pool.fund();
    }

    /// Whatever the fundings, waits and share changes, the nodes never take out more than was put in.
    /// Two equal nodes; one claims every few minutes for the whole period, the other once at the end: claiming often
    /// takes out no extra dust (each settlement rounds down), and the pool never pays more than it was funded.
    function test_claimingOftenTakesNoExtraDust() public {
        address a = register(1, 24);
        address b = register(2, 24);
        pool.poke(a);
        pool.poke(b);
        uint256 funded = 7 ether + 12345;
        pool.fund{value: funded}();
        uint256 ca;
        for (uint256 t; t < 200; ++t) {
            vm.warp(block.timestamp + 7 minutes + 13);
            ca += claimOf(a);
        }
        uint256 cb = claimOf(b);
        assertLe(ca, cb, "the frequent claimer gets no more than the patient one");
        assertEq(address(pool).balance, funded - ca - cb, "paid what it says");
        assertLe(funded - ca - cb, 1e6, "at most dust left");
    }

    /// A node that exits, withdraws and registers again (the same address) earns only while it holds a share: its
    /// old share does not run on over the time it was gone, and the node that stayed gets that time's stream.
    function test_aChurningNodeEarnsOnlyWhileRegistered() public {
        address a = register(1, 24);
        address b = register(2, 24);
        pool.poke(a);
        pool.poke(b);
        pool.fund{value: 8 ether}();
        vm.warp(block.timestamp + PERIOD / 4);
        vm.prank(a);
        reg.requestExit();
        pool.poke(a); // anyone pokes a leaving node down
        vm.warp(block.timestamp + 1 days); // the cooldown; the first stream ends meanwhile
        vm.prank(a);
        reg.withdraw();
        a = register(1, 24); // back, same address
        pool.poke(a);
        pool.fund{value: 8 ether}();
        vm.warp(block.timestamp + PERIOD);
        uint256 ca = claimOf(a);
        uint256 cb = claimOf(b);
        // half of the first stream's first quarter, half of the second; b the rest
        assertApproxEqAbs(ca, 1 ether + 4 ether, 1e9);
        assertApproxEqAbs(cb, 7 ether + 4 ether, 1e9);
        assertLe(ca + cb, 16 ether, "never more than funded");
    }

    /// A newcomer declaring a huge VRAM lowers everybody's R (VRAM is self-declared, a known gap); whoever is poked
    /// when, the pool pays no more than it was funded.
    function test_aHugeVramNewcomerCannotOverdrawThePool() public {
        address a = register(1, 24);
        address b = register(2, 24);
        pool.poke(a);
        pool.poke(b);
        pool.fund{value: 5 ether}();
        vm.warp(block.timestamp + PERIOD / 3);
        address big = register(3, type(uint32).max);
        pool.poke(big);
        vm.warp(block.timestamp + PERIOD / 3);
        pool.poke(a); // a poked down: R fell
        vm.warp(block.timestamp + PERIOD);
        uint256 paid = claimOf(a) + claimOf(b) + claimOf(big);
        assertLe(paid, 5 ether, "never more than funded");
        assertEq(address(pool).balance, 5 ether - paid, "paid what it says");
    }

    function testFuzz_claimsNeverExceedFunding(uint96[4] memory amounts, uint32[4] memory waits, uint8 pattern) public {
        address[3] memory nodes = [register(1, 80), register(2, 24), register(3, 8)];
        uint256 funded;
        for (uint256 i; i < 4; ++i) {
            uint256 amount = bound(amounts[i], 1, 1_000_000 ether);
            pool.fund{value: amount}();
            funded += amount;
            if ((pattern >> i) & 1 == 1) task(nodes[i % 3], (i * 700) % 2001, i % 3);
            pool.poke(nodes[i % 3]);
            vm.warp(block.timestamp + bound(waits[i], 0, 3 days));
        }
        vm.warp(block.timestamp + PERIOD);
        uint256 paid;
        for (uint256 i; i < 3; ++i) {
            (, uint256 earned) = pool.accountOf(nodes[i]);
            if (earned != 0) paid += claimOf(nodes[i]);
        }
        assertLe(paid, funded);
        assertEq(address(pool).balance, funded - paid);
    }
}
