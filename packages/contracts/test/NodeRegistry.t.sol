// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {NodeRegistryFixture} from "./utils/NodeRegistryFixture.sol";
import {NodeRegistry} from "../src/NodeRegistry.sol";
import {UncheckedPeerIdRegistry} from "./utils/UncheckedPeerIdRegistry.sol";
import {NodeRegistryBase} from "../src/registry/NodeRegistryBase.sol";

/// Registry tests of a node's own calls: register (and the selection weight it gets), addStake, pause/resume, exit
/// and withdraw, plus the constructor and setEscrow checks; this contract plays the escrow.
contract NodeRegistryTest is NodeRegistryFixture {
    // ------------------------------------------------ constructor / setEscrow

    function test_constructorRejectsBadParams() public {
        vm.expectRevert(NodeRegistryBase.InvalidParams.selector);
        new NodeRegistry(NodeRegistryBase.Params({minStake: 1, stakeCap: 0, exitCooldown: 0, maxDrawAttempts: 1, probeInterval: 1 days}));
        vm.expectRevert(NodeRegistryBase.InvalidParams.selector);
        new NodeRegistry(NodeRegistryBase.Params({minStake: 1, stakeCap: 1, exitCooldown: 0, maxDrawAttempts: 0, probeInterval: 1 days}));
    }

    function test_setEscrowErrors() public {
        vm.expectRevert(NodeRegistryBase.EscrowAlreadySet.selector);
        reg.setEscrow(address(1));
        NodeRegistry r2 = new UncheckedPeerIdRegistry(
            NodeRegistryBase.Params({minStake: 1, stakeCap: 1, exitCooldown: 0, maxDrawAttempts: 1, probeInterval: 1 days})
        );
        vm.prank(address(0xBEEF));
        vm.expectRevert(NodeRegistryBase.OnlyDeployer.selector);
        r2.setEscrow(address(1));
        vm.expectRevert(NodeRegistryBase.ZeroAddress.selector);
        r2.setEscrow(address(0));
    }

    // ------------------------------------------------ register

    function test_register() public {
        vm.expectEmit(true, true, false, true);
        emit NodeRegistryBase.NodeRegistered(node(1), keccak256("peer-x"), "peer-x", GPU_A, 24, 2 ether);
        vm.deal(node(1), 2 ether);
        vm.prank(node(1));
        reg.register{value: 2 ether}("peer-x", bytes32(0), "", GPU_A, 24);
        NodeRegistryBase.NodeView memory v = reg.nodeInfo(node(1));
        assertTrue(v.registered && v.eligible && !v.busy);
        assertEq(v.stake, 2 ether);
        assertEq(v.score, 1000);
        assertEq(v.weight, reg.selectionWeight(2 ether, 1000));
        assertEq(reg.totalWeight(), v.weight);
        assertEq(reg.groupWeight(GPU_A), v.weight);
        assertEq(reg.groupCount(GPU_A), 1);
        assertEq(reg.activeNodes(), 1);
        assertEq(reg.peerIdOwner(keccak256("peer-x")), node(1));
        assertEq(availableCalls, 1);
        assertEq(lastAvailable, node(1));
    }

    function test_registerErrors() public {
        address a = node(1);
        vm.deal(a, 100 ether);
        vm.startPrank(a);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.InsufficientStake.selector, 0.5 ether, 1 ether));
        reg.register{value: 0.5 ether}("p", bytes32(0), "", GPU_A, 8);
        vm.expectRevert(NodeRegistryBase.EmptyPeerId.selector);
        reg.register{value: 1 ether}("", bytes32(0), "", GPU_A, 8);
        vm.expectRevert(NodeRegistryBase.InvalidGpuModel.selector);
        reg.register{value: 1 ether}("p", bytes32(0), "", bytes32(0), 8);
        vm.expectRevert(NodeRegistryBase.ZeroVram.selector);
        reg.register{value: 1 ether}("p", bytes32(0), "", GPU_A, 0);
        reg.register{value: 1 ether}("p", bytes32(0), "", GPU_A, 8);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.AlreadyRegistered.selector, a));
        reg.register{value: 1 ether}("p2", bytes32(0), "", GPU_A, 8);
        vm.stopPrank();
        vm.deal(node(2), 2 ether);
        vm.prank(node(2));
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.PeerIdTaken.selector, keccak256("p")));
        reg.register{value: 1 ether}("p", bytes32(0), "", GPU_A, 8);
    }

    function test_selectionWeightFormula() public view {
        // S = min(stake, cap)*1e6/cap, Q = min(score,2000)*1e6/2000, W = S*Q/(1e6+Q)
        assertEq(reg.selectionWeight(10 ether, 2000), 500000);
        assertEq(reg.selectionWeight(20 ether, 5000), 500000);
        assertEq(reg.selectionWeight(0, 0), 0);
        assertEq(reg.selectionWeight(0, 1000), 0);
        uint256 s = 1 ether * 1e6 / 10 ether; // 100000
        uint256 q = 1000 * 1e6 / 2000; // 500000
        assertEq(reg.selectionWeight(1 ether, 1000), s * q / (1e6 + q));
    }

    // ------------------------------------------------ stake, pause, resume, exit

    function test_addStake() public {
        address a = reg1(1, GPU_A, 8, 1 ether);
        uint256 w0 = reg.weightOf(a);
        vm.deal(a, 5 ether);
        vm.prank(a);
        reg.addStake{value: 3 ether}();
        assertEq(reg.nodeInfo(a).stake, 4 ether);
        assertTrue(reg.weightOf(a) > w0);
        vm.prank(a);
        vm.expectRevert(NodeRegistryBase.ZeroAmount.selector);
        reg.addStake();
        vm.prank(node(9));
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.NotRegistered.selector, node(9)));
        reg.addStake{value: 0}();
    }

    function test_pauseResume() public {
        address a = reg1(1, GPU_A, 8, 1 ether);
        vm.prank(a);
        reg.pause();
        assertEq(reg.weightOf(a), 0);
        assertEq(reg.groupCount(GPU_A), 0);
        assertEq(reg.activeNodes(), 0);
        vm.prank(a);
        vm.expectRevert(NodeRegistryBase.AlreadyPaused.selector);
        reg.pause();
        vm.prank(a);
        reg.resume();
        assertTrue(reg.weightOf(a) > 0);
        assertEq(availableCalls, 2);
        vm.prank(a);
        vm.expectRevert(NodeRegistryBase.NotPaused.selector);
        reg.resume();
    }

    function test_exitAndWithdraw() public {
        address a = reg1(1, GPU_A, 8, 2 ether);
        vm.prank(a);
        vm.expectRevert(NodeRegistryBase.ExitNotRequested.selector);
        reg.withdraw();
        vm.prank(a);
        reg.requestExit();
        assertEq(reg.weightOf(a), 0);
        assertFalse(reg.isActive(a));
        vm.prank(a);
        vm.expectRevert(NodeRegistryBase.NodeIsExiting.selector);
        reg.requestExit();
        vm.prank(a);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.CooldownNotOver.selector, block.timestamp + 1 days));
        reg.withdraw();
        vm.warp(block.timestamp + 1 days);
        uint256 b0 = a.balance;
        vm.prank(a);
        reg.withdraw();
        assertEq(a.balance - b0, 2 ether);
        assertFalse(reg.isRegistered(a));
        assertEq(address(reg).balance, 0);
        // re-register reuses its slots
        uint256 slots = reg.slotsLength();
        vm.prank(a);
        reg.register{value: 1 ether}("again", bytes32(0), "", GPU_B, 16);
        assertEq(reg.slotsLength(), slots);
        assertTrue(reg.weightOf(a) > 0);
        assertEq(reg.groupCount(GPU_B), 1);
    }

    function test_resumeWhileExitingReverts() public {
        address a = reg1(1, GPU_A, 8, 2 ether);
        vm.startPrank(a);
        reg.pause();
        reg.requestExit();
        vm.expectRevert(NodeRegistryBase.NodeIsExiting.selector);
        reg.resume();
        vm.stopPrank();
    }

    function test_withdrawWhileBusyReverts() public {
        address a = reg1(1, GPU_A, 8, 2 ether);
        assertTrue(reg.assign(a));
        vm.prank(a);
        reg.requestExit();
        vm.warp(block.timestamp + 2 days);
        vm.prank(a);
        vm.expectRevert(NodeRegistryBase.NodeIsBusy.selector);
        reg.withdraw();
    }
}
