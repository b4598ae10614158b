// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// @notice The model multiplier (docs/contracts.md): a node whose last model is a job's model counts twice in that
///         job's verifier draw. Until 2026-12-05 a submission set the submitter's last model, so a coalition bought
///         the multiplier for model X by creating a tiny job of X and submitting its results from each of its nodes
///         (a bond of 2 x a tiny fee, given back at the release), doubling its draw weight, and so its odds of a
///         majority, on every job of X (the seventh audit's finding). Only a verification revealed on a job of X sets
///         it now: the draw chooses who verifies, by weight, so nobody can buy it for its own nodes alone.
contract ModelMultiplierTest is AttackBase {
    uint256 internal constant TINY_FEE = 0.001 ether;

    /// @dev A released job of model X with `fee`, its results submitted by `submitter`; returns its verifiers.
    function releasedModelJob(address submitter, uint256 fee, uint256 nonce) internal returns (JobEscrowBase.Verifier[] memory vs) {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
        p.modelId = MODEL_X;
        p.nonce = nonce;
        bytes32 id = createJob(p, fee);
        Results memory r = buildResults(id, 1, 1, "honest", one(submitter));
        submit(id, submitter, r.root);
        verifyRound(id, r, views3(r, r, r), noBlame(3));
        assertEq(status(id), uint256(JobEscrowBase.Status.Released));
        vs = escrow.verifiersOf(id);
    }

    function test_submittingATinyJobOfAModelBuysNoMultiplier() public {
        // the attacker's node submits (and processes) a tiny job of model X: released, its bond back
        uint256 stake0 = stakeOf(attacker);
        JobEscrowBase.Verifier[] memory vs = releasedModelJob(attacker, TINY_FEE, 1);
        assertEq(stakeOf(attacker), stake0, "nothing slashed");
        assertEq(registry.lockedStake(attacker), 0, "the bond was given back at the release: the old purchase cost only gas");
        // ...and its last model is not X: no multiplier on the draws of X's jobs
        assertEq(registry.nodeInfo(attacker).lastModel, bytes32(0), "a submission must not set the last model");
        // the verifiers that re-ran the job (drawn by weight, revealed) have X as their last model
        for (uint256 i; i < vs.length; ++i) {
            assertTrue(vs[i].node != attacker);
            assertEq(registry.nodeInfo(vs[i].node).lastModel, MODEL_X, "a revealed verification of X sets it");
        }
    }

    function test_aSubmissionKeepsTheLastModelAVerificationSet() public {
        // an honest node verified a job of X (its last model X), then submits a job of another model: it keeps X,
        // the model it last re-ran as a verifier (a processor's run is not the chain's to see)
        JobEscrowBase.Verifier[] memory vs = releasedModelJob(attacker, TINY_FEE, 2);
        address honest = vs[0].node;
        assertEq(registry.nodeInfo(honest).lastModel, MODEL_X);
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
        p.modelId = keccak256("another-model");
        p.nonce = 3;
        bytes32 id = createJob(p, TINY_FEE);
        Results memory r = buildResults(id, 1, 1, "honest", one(honest));
        submit(id, honest, r.root);
        assertEq(registry.nodeInfo(honest).lastModel, MODEL_X);
    }
}
