// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Fixture} from "./utils/Fixture.sol";
import {JobEscrowBase} from "../src/escrow/JobEscrowBase.sol";

/// The issue's network through the escrow: 201 idle 8 GB nodes and three idle 80 GB nodes (k = 3, the fewest a job
/// may have); 20 jobs needing 48 GB, all submitted at once. The first gets the three 80 GB nodes at selectVerifiers,
/// the others wait in the queue; each completed verification frees the three and the queue dispatch draws the next
/// job at once: 20 of 20 jobs are verified by the 80 GB nodes and released, none is stuck.
contract DrawGroupsTest is Fixture {
    uint256 constant FEE = 1 ether;

    function setUp() public {
        deploy();
        for (uint256 i; i < 201; ++i) registerNode(i, i % 2 == 0 ? GPU_A : GPU_B, 8, 2 ether + (i % 5) * 1 ether);
    }

    function test_twentyJobsNeeding48GbAllFindTheBigNodes() public {
        address big1 = registerNode(500, GPU_B, 80, 2 ether);
        address big2 = registerNode(501, keccak256("H100"), 80, 3 ether);
        address big3 = registerNode(502, GPU_A, 80, 2 ether);
        bytes32[] memory ids = new bytes32[](20);
        Results[] memory rs = new Results[](20);
        for (uint256 j; j < 20; ++j) {
            JobEscrowBase.CreateJobParams memory p = jobParams(1, 1, 3);
            p.minVramGb = 48;
            ids[j] = createJob(p, FEE);
            rs[j] = buildResults(ids[j], 1, 1, "honest", one(nodeAddr(j)));
            submit(ids[j], nodeAddr(j), rs[j].root);
        }
        vm.roll(block.number + 2);
        for (uint256 j; j < 20; ++j) escrow.selectVerifiers(ids[j]);
        uint256 released;
        for (uint256 step; step < 20; ++step) {
            // exactly one job holds the pair; the rest wait holding nothing
            uint256 active = 20;
            for (uint256 j; j < 20; ++j) {
                if (escrow.statusOf(ids[j]) != JobEscrowBase.Status.Submitted) continue;
                if (escrow.verifiersOf(ids[j]).length == 3) {
                    assertEq(active, 20, "two jobs hold verifiers");
                    active = j;
                } else {
                    assertTrue(escrow.isQueued(ids[j]), "a waiting job is not queued");
                }
            }
            assertTrue(active < 20, "no job was drawn although the 80 GB nodes are idle");
            JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(ids[active]);
            for (uint256 i; i < 3; ++i) {
                assertTrue(vs[i].node == big1 || vs[i].node == big2 || vs[i].node == big3, "a small node drawn");
            }
            _finish(ids[active], rs[active]);
            assertEq(uint256(escrow.statusOf(ids[active])), uint256(JobEscrowBase.Status.Released));
            ++released;
        }
        assertEq(released, 20);
        assertEq(escrow.queueSize(), 0);
    }

    /// The three verifiers commit, the sample is proven, all reveal a match (each reveal frees its node and
    /// dispatches the queue), settle.
    function _finish(bytes32 id, Results memory r) internal {
        Results[] memory v = views3(r, r, r);
        revealSeeds(id);
        commitViews(id, v, noBlame(3));
        vm.roll(block.number + 1);
        prove(id, r);
        revealViews(id, r, v, noBlame(3));
        escrow.settle(id);
    }
}
