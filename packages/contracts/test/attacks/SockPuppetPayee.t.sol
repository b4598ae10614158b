// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";
import {console} from "../utils/Test.sol";

/// A submitter that re-points a leaf to a node of its own (a sock puppet staked at minStake that signed a copy of the
/// output) had the verifiers blame the sock, and the registry slashed at most its stake: 0.01 ETH where the bond is
/// 2 ETH, so stealing leaves paid on average (docs/settlement.md, Defences 28). A payee now answers for its leaves
/// only when the submission named it, and naming it locks the job's bond of its stake: the sock either holds the whole
/// bond, locked until it is judged, or is not named and its fake is the submitter's.
contract SockPuppetPayeeTest is AttackBase {
    address internal sock;
    uint96 internal constant MIN_STAKE = 0.01 ether;

    /// @dev A minimum stake well below the fee, as on a devnet (`deploy()`: 0.01 ETH).
    function registryParams() internal pure override returns (NodeRegistryBase.Params memory) {
        return NodeRegistryBase.Params({minStake: MIN_STAKE, stakeCap: 100 ether, exitCooldown: 1 days, maxDrawAttempts: 64, probeInterval: 1 days});
    }

    function setUp() public override {
        super.setUp();
        sock = registerNode(20, GPU_A, 24, MIN_STAKE);
    }

    /// @dev A full-sample job (1 MacroJob of 4, k 3) whose deadline leaves room for a 1-day exit cooldown.
    function _job() internal returns (bytes32 id) {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 4, 3);
        p.samples = 4;
        p.deadline = uint40(block.timestamp + 3 days);
        id = createJob(p, FEE);
    }

    /// @dev A full-sample job (1 MacroJob of 4, k 3) whose honest results pay procA and procB; the attacker, as its
    ///      submitter, re-points position 1 to its sock and changes its output to one the sock signed.
    function _stolen(bytes32 id) internal pure returns (Results memory truth, Results memory sent) {
        truth = buildResults(id, 1, 4, "honest", two(address(0xA11CE), address(0xB0B)));
        sent = copyResults(truth);
        sent.payees[1] = address(0);
        sent.outputs[1] = keccak256("the sock's copy");
    }

    function _send(bytes32 id, Results memory sent, address[] memory named) internal {
        sent.payees[1] = sock;
        _rebuild(id, 4, sent);
        submitNaming(id, attacker, sent.root, named);
    }

    /// The sock cannot be named: its stake is below the bond.
    function test_aSockStakedBelowTheBondCannotBeNamed() public {
        bytes32 id = _job();
        (, Results memory sent) = _stolen(id);
        sent.payees[1] = sock;
        _rebuild(id, 4, sent);
        join(id, sock);
        commitFirst(id, attacker, sent.root);
        vm.prank(attacker);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.InsufficientFreeStake.selector, MIN_STAKE, 2 * FEE));
        escrow.submitResults(id, sent.root, "bafy-manifest", one(sock));
    }

    /// Left out, the sock does not answer for the leaf: the verifiers blame it, and the submitter loses the bond.
    function test_aSockLeftOutCostsTheSubmitterTheBond() public {
        bytes32 id = _job();
        (Results memory truth, Results memory sent) = _stolen(id);
        uint256 before = stakeOf(attacker) + stakeOf(sock);
        _send(id, sent, new address[](0));
        verifyRound(id, sent, views3(truth, truth, truth), allBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open), "rejected");
        assertEq(stakeOf(sock), MIN_STAKE, "the sock, named by nobody, is not slashed");
        assertEq(before - (stakeOf(attacker) + stakeOf(sock)), 2 * FEE, "the coalition loses the whole bond");
    }

    /// Staked for the bond and named, the sock is slashed the whole bond, and could not withdraw it meanwhile.
    function test_aSockNamedLosesTheBond() public {
        vm.deal(sock, 2 ether);
        vm.prank(sock);
        registry.addStake{value: 2 ether}();
        bytes32 id = _job();
        (Results memory truth, Results memory sent) = _stolen(id);
        uint256 before = stakeOf(attacker) + stakeOf(sock);
        _send(id, sent, one(sock));
        assertEq(registry.lockedStake(sock), 2 * FEE, "the named sock's bond is locked");
        vm.prank(sock);
        registry.requestExit();
        vm.warp(block.timestamp + 1 days + 1);
        vm.prank(sock);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.StakeIsLocked.selector, 2 * FEE));
        registry.withdraw();
        verifyRound(id, sent, views3(truth, truth, truth), allBlame(3));
        assertEq(stakeOf(sock), MIN_STAKE, "the sock is slashed the bond");
        assertEq(before - (stakeOf(attacker) + stakeOf(sock)), 2 * FEE, "the coalition loses the whole bond");
        assertEq(registry.lockedStake(sock), 0);
        assertEq(registry.lockedStake(attacker), 0);
    }

    /// What one try earns against what it risks, sampled over 64 jobs of 4 MacroJobs of 8 (one sample each), one
    /// leaf re-pointed per MacroJob: every caught try costs the coalition the bond (2 ETH; it cost the sock's 0.01 ETH
    /// before, and the theft paid), every uncaught one earns the four stolen leaves; on average the theft loses.
    function test_stealingLeavesLosesOnAverage() public {
        uint256 earned;
        uint256 lost;
        uint256 caught;
        for (uint256 n; n < 64; ++n) {
            uint256 snap = vm.snapshotState();
            JobEscrowBase.CreateJobParams memory p = jobParams(4, 8, 3);
            p.nonce = 9_000 + n;
            bytes32 id = createJob(p, FEE);
            Results memory truth = honestResults(id, 4, 8);
            Results memory sent = copyResults(truth);
            for (uint256 m; m < 4; ++m) {
                sent.payees[m * 8 + 3] = sock;
                sent.outputs[m * 8 + 3] = keccak256(abi.encode("copy", m));
            }
            _rebuild(id, 8, sent);
            uint256 before = stakeOf(attacker) + stakeOf(sock);
            submit(id, attacker, sent.root);
            verifyRound(id, sent, views3(truth, truth, truth), allBlame(3));
            if (status(id) == uint256(JobEscrowBase.Status.Released)) {
                earned += 4 * escrow.processorPool(id) / 32;
            } else {
                caught++;
                lost += before - (stakeOf(attacker) + stakeOf(sock));
            }
            vm.revertToState(snap);
        }
        console.log("caught of 64", caught);
        console.log("earned (wei)", earned);
        console.log("lost (wei)", lost);
        assertTrue(caught > 0, "the sample catches some");
        assertTrue(lost > earned, "the theft loses on average");
    }
}
