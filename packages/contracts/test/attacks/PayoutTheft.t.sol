// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";
import {Encoding} from "../../src/libraries/Encoding.sol";

/// Attack 1: a node that did no MicroJob rebuilds the honest results from the public CRDT, pays itself, and submits
/// before the real finalizer; or copies the finalizer's root from the mempool.
contract PayoutTheftTest is AttackBase {
    /// The thief's root has the honest outputs but itself as payee: the verifiers expect the payees that signed the
    /// results, so the sample does not match, the thief (the submitter: its leaves match no signed result) is
    /// slashed, and the honest finalizer's next submission pays the processors.
    function test_selfPayingRootIsRejectedAndSlashed() public {
        bytes32 id = newJob(4, 8, 1);
        Results memory truth = honestResults(id, 4, 8);
        Results memory stolen = buildResults(id, 4, 8, "honest", one(attacker));
        uint256 stake0 = stakeOf(attacker);
        submit(id, attacker, stolen.root);
        verifyRound(id, stolen, views3(truth, truth, truth), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open));
        assertEq(stakeOf(attacker), stake0 - 2 * FEE, "thief slashed the bond (2x fee)");
        // the honest finalizer submits next: released, the processors are paid, the thief nothing
        submit(id, finalizer, truth.root);
        verifyRound(id, truth, views3(truth, truth, truth), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Released));
        // the thief's own leaves are not in the released root
        JobEscrowBase.ResultLeaf[] memory leaves = new JobEscrowBase.ResultLeaf[](1);
        bytes32[][] memory proofs = new bytes32[][](1);
        leaves[0] = leafAt(id, stolen, 8, 5);
        proofs[0] = merkleProof(stolen.leaves, 5);
        vm.expectRevert(JobEscrowBase.InvalidProof.selector);
        escrow.claim(id, leaves, proofs);
        uint256 a0 = attacker.balance;
        uint256 pa = procA.balance;
        claimAll(id, truth, 8);
        assertEq(attacker.balance, a0);
        assertEq(procA.balance - pa, escrow.processorPool(id) / 32 * 16);
    }

    /// An honest-result finalizer that pays itself 100 % is caught the same way.
    function test_finalizerPayingItselfIsRejected() public {
        bytes32 id = newJob(2, 4, 1);
        Results memory truth = honestResults(id, 2, 4);
        Results memory greedy = buildResults(id, 2, 4, "honest", one(finalizer));
        uint256 stake0 = stakeOf(finalizer);
        submit(id, finalizer, greedy.root);
        verifyRound(id, greedy, views3(truth, truth, truth), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Open));
        assertEq(stakeOf(finalizer), stake0 - 2 * FEE);
    }

    /// Copying the finalizer's root from the mempool: without its own earlier commitment the copier cannot submit;
    /// its commitment in the same block is too late; and the copied root pays the processors, not the copier.
    function test_copiedRootCannotBeSubmittedAndPaysTheProcessors() public {
        bytes32 id = newJob(1, 2, 1);
        Results memory truth = honestResults(id, 1, 2);
        vm.prank(finalizer);
        escrow.commitResults(id, Encoding.resultCommitment(id, 0, truth.root, "bafy-manifest", finalizer));
        // the attacker reads the root in the mempool and replays the submission
        vm.prank(attacker);
        vm.expectRevert(JobEscrowBase.NoResultCommit.selector);
        escrow.submitResults(id, truth.root, "bafy-manifest", new address[](0));
        // the finalizer's commitment does not open for the attacker
        vm.prank(attacker);
        escrow.commitResults(id, Encoding.resultCommitment(id, 0, truth.root, "bafy-manifest", finalizer));
        vm.roll(block.number + 1);
        vm.prank(attacker);
        vm.expectRevert(JobEscrowBase.ResultCommitMismatch.selector);
        escrow.submitResults(id, truth.root, "bafy-manifest", new address[](0));
        // committing it under its own name works, but every leaf still pays the processors
        submit(id, attacker, truth.root);
        verifyRound(id, truth, views3(truth, truth, truth), noBlame(3));
        uint256 a0 = attacker.balance;
        claimAll(id, truth, 2);
        assertEq(attacker.balance, a0, "the copier gains nothing");
        assertEq(registry.lockedStake(attacker), 0);
    }
}
