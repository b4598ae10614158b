// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Fixture} from "../utils/Fixture.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";
import {IncentivePool} from "../../src/IncentivePool.sol";

/// A verifier that promised a short timeout (O = 25 %, the best timeout score P) and is about to commit late sets
/// O = 100 just before its commit and O = 25 right after: the escrow reads the setting when the verifier commits, so
/// the commit would not be late, its commit round would score in full and its incentive share would never show the
/// broken promise. The setting is frozen while the node is busy: a drawn verifier cannot change it until its task
/// ends, and its late commit is recorded as one.
contract TimeoutFlipTest is Fixture {
    address sub;
    uint256 constant FEE = 10 ether;
    IncentivePool pool;

    function setUp() public {
        deploy();
        sub = registerNode(0, GPU_A, 24, 50 ether);
        registerMany(1, 5, GPU_A, 24, 4 ether);
        for (uint256 i = 1; i <= 5; ++i) {
            vm.prank(nodeAddr(i));
            registry.setTimeout(25);
        }
        pool = new IncentivePool(registry, 2500, 2500, 5000, 7 days);
    }

    function test_aDrawnVerifierCannotRelaxItsTimeoutToCommitLate() public {
        bytes32 id = createJob(jobParams(2, 2, 3), FEE);
        Results memory r = buildResults(id, 2, 2, "honest", two(address(0xA11CE), address(0xB0B)));
        submit(id, sub, r.root);
        select(id);
        JobEscrowBase.Job memory j = escrow.jobs(id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        address cheat = vs[0].node;
        // 90 % into the commit window: far past its 25 % promise
        vm.roll(j.seedDeadline + (j.commitDeadline - j.seedDeadline) * 9 / 10);
        vm.prank(cheat);
        vm.expectRevert(NodeRegistryBase.NodeIsBusy.selector);
        registry.setTimeout(100);
        assertEq(registry.timeoutOf(cheat), 25, "the promise stands while the node is drawn");
        commitViews(id, views3(r, r, r), noBlame(3));
        vm.roll(block.number + 1);
        prove(id, r);
        revealViews(id, r, views3(r, r, r), noBlame(3));
        escrow.settle(id);
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrowBase.Status.Released), "released all the same");
        (,,, uint256 timeouts,) = registry.qosState(cheat);
        assertEq(timeouts, 1, "a commit at 90 % of the window by a node that promised 25 % is late");
        // once its task is over the node may change its setting again
        vm.prank(cheat);
        registry.setTimeout(100);
        assertEq(registry.timeoutOf(cheat), 100);
    }
}
