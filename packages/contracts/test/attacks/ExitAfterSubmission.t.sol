// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";
import {Vm} from "../utils/Test.sol";

/// A processor that signs a wrong output and tries to leave the registry while its job waits for verifiers (Defence 15
/// of docs/settlement.md): the submission named it, so its bond stays locked until it is judged, the blame stays with
/// it and it is slashed the bond, not the honest finalizer that submitted its leaf.
contract ExitAfterSubmissionTest is AttackBase {
    /// @dev A full-sample job (1 MacroJob of 4, samples 4, k 3) with a deadline 3 days off, whose results the
    ///      finalizer submits with the attacker's MicroJob (position 0) wrong, while three of the five possible
    ///      verifiers are paused: the draw waits in the queue. Returns the job and the true results.
    function _submittedFake(bool exitFirst) internal returns (bytes32 id, Results memory truth, Results memory sent) {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 4, 3);
        p.samples = 4;
        p.deadline = uint40(block.timestamp + 3 days);
        id = createJob(p, FEE);
        truth = buildResults(id, 1, 4, "honest", two(attacker, procA));
        sent = copyResults(truth);
        sent.outputs[0] = keccak256("wrong");
        _rebuild(id, 4, sent);
        for (uint256 i = 2; i <= 4; ++i) {
            vm.prank(nodeAddr(i));
            registry.pause();
        }
        if (exitFirst) {
            vm.prank(attacker);
            registry.requestExit();
            vm.warp(block.timestamp + 1);
        }
        // an honest finalizer names every payee but an exiting one (whose leaves it re-runs and pays itself)
        submitNaming(id, finalizer, sent.root, exitFirst ? new address[](0) : one(attacker));
        if (!exitFirst) {
            vm.warp(block.timestamp + 1);
            vm.prank(attacker);
            registry.requestExit();
        }
        vm.roll(block.number + 2);
        vm.prank(finalizer);
        escrow.selectVerifiers(id);
        assertEq(escrow.jobs(id).assigned, 0, "the verification waits for verifiers");
    }

    /// @dev After the cooldown a verifier comes back, the queued verification is drawn and every verifier finds the
    ///      attacker's own signature on the wrong output.
    function _judge(bytes32 id, Results memory truth, Results memory sent) internal {
        vm.prank(nodeAddr(2));
        registry.resume();
        assertEq(escrow.jobs(id).assigned, 3, "drawn from the queue");
        revealSeeds(id);
        judge(id, sent, views3(truth, truth, truth), allBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open), "rejected");
    }

    /// The processor asks to exit after the submission: it cannot withdraw while its leaf waits to be judged, and
    /// once judged it is slashed the whole bond; the honest finalizer keeps its stake, and its bond is free.
    function test_processorLeavingAfterTheSubmissionCannotWithdrawAndIsSlashed() public {
        (bytes32 id, Results memory truth, Results memory sent) = _submittedFake(false);
        uint256 fin0 = stakeOf(finalizer);
        vm.warp(block.timestamp + 1 days + 1);
        assertEq(registry.lockedStake(attacker), 2 * FEE, "the named payee's bond is locked");
        vm.prank(attacker);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.StakeIsLocked.selector, 2 * FEE));
        registry.withdraw();
        vm.recordLogs();
        _judge(id, truth, sent);
        assertEq(culpritOf(id), attacker, "the rejection names the processor");
        assertEq(stakeOf(attacker), 18 ether, "slashed the bond");
        assertEq(stakeOf(finalizer), fin0, "the honest finalizer keeps its stake");
        assertEq(registry.lockedStake(finalizer), 0, "and its bond is free");
        assertEq(registry.lockedStake(attacker), 0, "the payee's bond is unlocked with the round");
        uint256 bal0 = attacker.balance;
        vm.prank(attacker);
        registry.withdraw();
        assertEq(attacker.balance - bal0, 18 ether, "it leaves with what is left");
    }

    /// @dev The culprit of the job's rejection among the recorded logs.
    function culpritOf(bytes32 id) internal returns (address) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics[0] == JobEscrowBase.JobRejected.selector && logs[i].topics[1] == id) {
                return address(uint160(uint256(logs[i].topics[2])));
            }
        }
        revert("no JobRejected");
    }

    /// Control: a processor already leaving when the results came in cannot be named (its bond cannot be locked),
    /// so the finalizer that submitted its leaf anyway answers for it.
    function test_processorLeavingBeforeTheSubmissionIsTheSubmittersFault() public {
        (bytes32 id, Results memory truth, Results memory sent) = _submittedFake(true);
        uint256 fin0 = stakeOf(finalizer);
        vm.warp(block.timestamp + 1 days + 1);
        uint256 bal0 = attacker.balance;
        vm.prank(attacker);
        registry.withdraw();
        assertEq(attacker.balance - bal0, 20 ether, "a payee left out is not held");
        _judge(id, truth, sent);
        assertEq(stakeOf(finalizer), fin0 - 2 * FEE, "the finalizer that paid an exiting signer is slashed its bond");
    }

    /// A submission cannot name a payee that is exiting: its bond cannot be locked.
    function test_anExitingPayeeCannotBeNamed() public {
        bytes32 id = newJob(1, 4, 4);
        Results memory r = buildResults(id, 1, 4, "honest", two(attacker, procA));
        join(id, attacker);
        vm.prank(attacker);
        registry.requestExit();
        commitFirst(id, finalizer, r.root);
        vm.prank(finalizer);
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.NotRegistered.selector, attacker));
        escrow.submitResults(id, r.root, "bafy-manifest", one(attacker));
    }
}
