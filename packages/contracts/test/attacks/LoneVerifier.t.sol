// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// Attack 7: one verifier's word decides. With k = 1 a lone verifier that re-runs wrongly (or lies) finds a "wrong"
/// leaf and blames its processor: an honest processor was slashed two fees (found end to end: a verifier whose own
/// re-run was wrong rejected an honest submission and slashed the processor of the sampled MicroJob). Without
/// that slash a cheating processor would lose nothing when caught. So a job needs k >= 3 (with two, one liar split the
/// vote and restarted the round for free), and a rejection needs a majority of k: one liar among three is outvoted.
contract LoneVerifierTest is AttackBase {
    function _job(uint8 k) internal returns (bytes32 id) {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 4, k);
        p.samples = 4;
        id = createJob(p, FEE);
    }

    function _lie(bytes32 id, Results memory truth) internal pure returns (Results memory lie) {
        lie = copyResults(truth);
        lie.outputs[0] = keccak256("a wrong re-run");
        _rebuild(id, 4, lie);
    }

    function test_aOneVerifierJobIsRefused() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 4, 1);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.InvalidVerifierCount.selector, 1, 3, 7));
        escrow.createJob{value: FEE}(p);
    }

    /// Two verifiers are refused too: one liar beside an honest verifier splits the vote, and a split vote used to
    /// restart the round with a new sample, slashing nobody (attacks/SplitVote.t.sol).
    function test_aTwoVerifierJobIsRefused() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 4, 2);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.InvalidVerifierCount.selector, 2, 3, 7));
        escrow.createJob{value: FEE}(p);
    }

    /// Among three, the lone liar is outvoted: released, the processor paid, the liar penalised one share.
    function test_oneLiarOfThreeIsOutvotedAndPenalised() public {
        address proc = nodeAddr(2);
        bytes32 id = _job(3);
        Results memory truth = buildResults(id, 1, 4, "honest", one(proc));
        uint256 proc0 = stakeOf(proc);
        submit(id, finalizer, truth.root);
        select(id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        uint256 l = vs[0].node == proc ? 1 : 0;
        uint256 liarStake0 = stakeOf(vs[l].node);
        uint256 share = escrow.verifierShare(id);
        Results[] memory views = l == 0 ? views3(_lie(id, truth), truth, truth) : views3(truth, _lie(id, truth), truth);
        commitViews(id, views, allBlame(3));
        vm.roll(block.number + 1);
        prove(id, truth);
        revealViews(id, truth, views, allBlame(3));
        escrow.settle(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Released));
        assertEq(stakeOf(proc), proc0, "the processor keeps its stake");
        assertEq(stakeOf(vs[l].node), liarStake0 - share, "the liar loses one verifier share");
    }
}
