// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Fixture} from "./utils/Fixture.sol";
import {JobEscrowBase} from "../src/escrow/JobEscrowBase.sol";
import {NodeRegistryBase} from "../src/registry/NodeRegistryBase.sol";

/// Each node's timeout setting O (percent of a commit window): stake covers it, P follows it, the escrow holds
/// a verifier to it.
contract TimeoutSettingTest is Fixture {
    address sub;
    uint256 constant FEE = 10 ether;

    function setUp() public {
        deploy();
        sub = registerNode(0, GPU_A, 24, 50 ether);
        registerMany(1, 5, GPU_A, 24, 4 ether);
    }

    function setTimeout(address a, uint256 pct) internal {
        vm.prank(a);
        registry.setTimeout(pct);
    }

    function test_aShorterTimeoutNeedsMoreStakeAndScoresHigher() public {
        address a = nodeAddr(1);
        assertEq(registry.timeoutOf(a), 100); // never set
        assertEq(registry.timeoutScore(a), 0); // P = (maxO - O) / (maxO - Omin) = 0 at the longest timeout
        setTimeout(a, 25);
        assertEq(registry.timeoutOf(a), 25);
        assertEq(registry.timeoutScore(a), 1e6);

        address b = registerNode(6, GPU_A, 24, 2 ether);
        assertEq(registry.timeoutStake(25), 4 ether);
        vm.prank(b);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.InsufficientStake.selector, 2 ether, 4 ether));
        registry.setTimeout(25);
        setTimeout(b, 50);
        assertEq(registry.timeoutScore(b), 666_666); // (100 - 50) / 75
        setTimeout(b, 100);
        assertEq(registry.timeoutScore(b), 0);
    }

    function test_outOfRangeAndUnregisteredAreRefused() public {
        address a = nodeAddr(1);
        vm.prank(a);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.InvalidTimeout.selector, 24));
        registry.setTimeout(24);
        vm.prank(a);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.InvalidTimeout.selector, 101));
        registry.setTimeout(101);
        vm.prank(address(0xBAD));
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.NotRegistered.selector, address(0xBAD)));
        registry.setTimeout(50);
    }

    function test_aSlashRelaxesTheTimeoutToWhatTheStakeStillCovers() public {
        address a = nodeAddr(1);
        setTimeout(a, 25);
        vm.prank(address(escrow));
        registry.slash(a, 2 ether);
        assertEq(registry.timeoutOf(a), 50);
        vm.prank(address(escrow));
        registry.slash(a, 1.5 ether); // 0.5 ether left: below minStake, the longest timeout
        assertEq(registry.timeoutOf(a), 100);
    }

    /// Runs a k = 3 job to Released; the verifiers commit `commitAt` parts in 1 000 into the commit window.
    function released(uint256 commitAt) internal returns (JobEscrowBase.Verifier[] memory vs) {
        bytes32 id = createJob(jobParams(2, 2, 3), FEE);
        Results memory r = buildResults(id, 2, 2, "honest", two(address(0xA11CE), address(0xB0B)));
        submit(id, sub, r.root);
        select(id);
        JobEscrowBase.Job memory j = escrow.jobs(id);
        uint256 at = j.seedDeadline + (j.commitDeadline - j.seedDeadline) * commitAt / 1000;
        if (at > block.number) vm.roll(at);
        commitViews(id, views3(r, r, r), noBlame(3));
        vm.roll(block.number + 1);
        prove(id, r);
        revealViews(id, r, views3(r, r, r), noBlame(3));
        escrow.settle(id);
        // late commits still count for the verification: the job is released either way
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrowBase.Status.Released));
        vs = escrow.verifiersOf(id);
    }

    function roundScore(uint256 order) internal pure returns (uint256) {
        return order == 0 ? 1000 : order == 1 ? 500 : 200;
    }

    function test_aCommitAfterTheVerifiersOwnTimeoutScoresZeroForItsCommitRound() public {
        for (uint256 i = 1; i <= 5; ++i) setTimeout(nodeAddr(i), 25);
        JobEscrowBase.Verifier[] memory vs = released(333); // a third of the way: past 25 %
        for (uint256 i; i < vs.length; ++i) {
            (uint256 score, uint256 tasks,, uint256 timeouts,) = registry.qosState(vs[i].node);
            assertEq(tasks, 1);
            assertEq(timeouts, 1); // the late commit round
            assertEq(score, roundScore(vs[i].revealOrder)); // the commit round scores 0
        }
    }

    function test_aCommitWithinTheTimeoutScoresByItsOrder() public {
        for (uint256 i = 1; i <= 5; ++i) setTimeout(nodeAddr(i), 50);
        JobEscrowBase.Verifier[] memory vs = released(333); // a third of the way: within 50 %
        for (uint256 i; i < vs.length; ++i) {
            (uint256 score,,, uint256 timeouts,) = registry.qosState(vs[i].node);
            assertEq(timeouts, 0);
            assertEq(score, roundScore(vs[i].commitOrder) + roundScore(vs[i].revealOrder));
        }
    }
}
