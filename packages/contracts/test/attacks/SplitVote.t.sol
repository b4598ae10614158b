// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// With k = 2, one colluding verifier turned a caught fake into a free re-roll: the honest verifier found the fake
/// (bad leaf, submitter blamed), the colluder voted "match", neither side had a majority of 2, settle restarted the
/// round with a new draw and a new sample, and in that branch everyone who revealed "won": neither the submitter nor
/// the liar was slashed. A job now needs k >= 3 (MIN_VERIFIERS): two honest verifiers outvote one liar,
/// so the caught fake is rejected, the submitter slashed the bond and the liar one share.
/// Any even k split the same way: with k = 4, two colluders against two honest verifiers tied 2 to 2 and re-rolled
/// the fake for free (found by the sixth audit). k must now be odd: a vote of all k has a majority.
contract SplitVoteTest is AttackBase {
    uint32 constant M = 4;
    uint32 constant P = 8;

    function test_aTwoVerifierJobIsRefused() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(M, P, 2);
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.InvalidVerifierCount.selector, 2, 3, 7));
        escrow.createJob{value: FEE}(p);
    }

    function test_anEvenVerifierCountIsRefused() public {
        for (uint8 k = 4; k <= 6; k += 2) {
            JobEscrowBase.CreateJobParams memory p = jobParams(M, P, k);
            vm.prank(creator);
            vm.expectRevert(abi.encodeWithSelector(JobEscrowBase.EvenVerifierCount.selector, k));
            escrow.createJob{value: FEE}(p);
        }
        // odd counts up to the deployment's maximum are taken
        for (uint8 k = 3; k <= 7; k += 2) {
            JobEscrowBase.CreateJobParams memory p = jobParams(M, P, k);
            vm.prank(creator);
            escrow.createJob{value: FEE}(p);
        }
    }

    /// The fewest verifiers a job may have, one of them lying for the cheating submitter: the fake is caught.
    function test_aCaughtFakeWithOneLiarCostsTheSubmitterAndTheLiar() public {
        (bytes32 id, Results memory honest, Results memory fake) = caughtFakeRound(M, P, uint8(escrow.MIN_VERIFIERS()), 9000);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        address liar = vs[2].node;
        uint256 s0 = stakeOf(attacker);
        uint256 l0 = stakeOf(liar);
        uint256 bond = escrow.bondOf(id);
        uint256 share = escrow.verifierShare(id);
        // two honest verifiers find leaf 0 wrong and blame the submitter; the liar "matches" (its made-up digest is
        // the fake's)
        Results[] memory v = views3(honest, honest, fake);
        commitViews(id, v, noBlame(3));
        vm.roll(block.number + 1);
        prove(id, fake);
        revealViews(id, fake, v, noBlame(3));
        escrow.settle(id);

        JobEscrowBase.Job memory j = escrow.jobs(id);
        assertEq(uint256(j.status), uint256(JobEscrowBase.Status.Open), "rejected, not restarted");
        assertEq(j.rejections, 1);
        assertEq(s0 - stakeOf(attacker), bond, "the submitter is slashed the bond");
        assertEq(l0 - stakeOf(liar), share, "the liar loses one verifier share");
        for (uint256 i; i < 2; ++i) assertEq(escrow.credits(vs[i].node), share, "the honest verifiers are paid");
    }
}
