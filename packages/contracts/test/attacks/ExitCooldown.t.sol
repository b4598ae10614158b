// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";

/// A verifier that asks to exit when it is drawn, votes a lie, and takes its whole stake out between its reveal (which
/// releases it) and the settle (which slashes its share for being outvoted). The escrow's windows are in blocks, the
/// registry's exit cooldown in seconds: on a chain of 12 s blocks a job whose sample re-runs for a day (its creator's
/// honest hint) has a commit window of ~24.2 h, longer than the 1-day cooldown counted from the exit request. The
/// registry now runs an exiting node's cooldown from its last release too.
contract ExitCooldownTest is AttackBase {
    uint256 internal constant SPB = 12;

    function escrowParams() internal pure override returns (JobEscrowBase.Params memory p) {
        p = super.escrowParams();
        p.secondsPerBlock = uint32(SPB);
    }

    /// @dev Rolls `n` blocks and moves the clock by as many block times.
    function _blocks(uint256 n) internal {
        vm.roll(block.number + n);
        vm.warp(block.timestamp + n * SPB);
    }

    /// The liar (drawn, then asks to exit) commits in the last block of the commit window, reveals a lie at once
    /// (all k committed: reveals open) and withdraws in the same block, before anyone can settle. Defended
    /// behaviour: it cannot leave with the share it is to be slashed for being outvoted.
    function test_anOutvotedVerifierCannotWithdrawBeforeTheSettle() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 4, 3);
        p.secondsPerMicroJob = 86_400; // one sampled MicroJob that takes a day to re-run: the 7 200-block cap
        p.deadline = uint40(block.timestamp + 3 days);
        bytes32 id = createJob(p, FEE);
        Results memory truth = honestResults(id, 1, 4);
        Results memory lie = buildResults(id, 1, 4, "lie", two(procA, procB));
        submit(id, finalizer, truth.root);
        _blocks(2);
        escrow.selectVerifiers(id);
        revealSeeds(id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        address liar = vs[2].node;
        vm.prank(liar);
        registry.requestExit();
        uint256 askedExitAt = registry.nodeInfo(liar).exitAt;
        uint256 s0 = stakeOf(liar);
        uint256 share = escrow.verifierShare(id);

        // the honest two commit at once and the sample is proven; the liar waits for the last commit block
        Results memory silent;
        commitViews(id, views3(truth, truth, silent), noBlame(3));
        prove(id, truth);
        JobEscrowBase.Job memory j = escrow.jobs(id);
        _blocks(uint256(j.commitDeadline) - block.number);
        Results[] memory v = views3(truth, truth, lie);
        commitViews(id, views3(silent, silent, lie), noBlame(3));
        revealViews(id, truth, v, noBlame(3));
        assertEq(escrow.jobs(id).reveals, 3, "all revealed: settle is open from this block on");

        assertGt(block.timestamp, askedExitAt, "the round outlasted the cooldown counted from the exit request");
        vm.prank(liar); // a contract node would do it in its reveal transaction
        vm.expectRevert(abi.encodeWithSelector(NodeRegistryBase.CooldownNotOver.selector, block.timestamp + 1 days));
        registry.withdraw();
        escrow.settle(id);
        assertEq(status(id), uint256(JobEscrowBase.Status.Released), "released by the honest majority");
        assertEq(stakeOf(liar), s0 - share, "the outvoted liar lost its share");

        vm.warp(block.timestamp + 1 days);
        uint256 b0 = liar.balance;
        vm.prank(liar);
        registry.withdraw();
        assertEq(liar.balance - b0, s0 - share, "it leaves with its stake less its share, one cooldown after its release");
    }
}
