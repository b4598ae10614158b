// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";
import {console} from "../utils/Test.sol";

/// KNOWN GAP (docs/settlement.md, Known gaps): the verifier draw is fixed by blockhash(submitBlock + 1) AND by the registry's sum trees at the
/// moment of the draw. The submitter learns the blockhash at submitBlock + 1 and draws alone (for free) until
/// submitBlock + 17; in between its own nodes can change the trees: a top-up of a few 1e13 wei of stake changes the
/// total weight by one unit and re-maps every pick (y % total). Simulating the draw for successive top-ups (eth_call
/// or a local copy of the state), the submitter picks the one that draws a majority of its own nodes, then sends
/// the top-up and selectVerifiers. A coalition with ~13 % of the draw weight thus gets 2 of 3 verifiers on demand
/// (P_maj at 13 % is ~0.02 per draw, as Economics prices it) and releases a completely fake job. This test records
/// the gap as it stands (it asserts the attack still works); a fix should turn it into an attack test that fails.
contract DrawGrindingTest is AttackBase {
    uint32 constant M = 4;
    uint32 constant P = 8;
    address sybil1;
    address sybil2;

    function setUp() public override {
        super.setUp(); // attacker (submitter) 20 ETH, honest node 1 20 ETH, honest nodes 2..6 2 ETH each
        sybil1 = registerNode(7, GPU_A, 24, 1.5 ether);
        sybil2 = registerNode(8, GPU_A, 24, 1.5 ether);
    }

    function _bothSybilsDrawn(bytes32 id) internal view returns (bool) {
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        uint256 n;
        for (uint256 i; i < vs.length; ++i) if (vs[i].node == sybil1 || vs[i].node == sybil2) ++n;
        return n >= 2;
    }

    function test_knownGap_submitterGrindsTheDrawWithATinyStakeTopUp() public {
        bytes32 id = newJob(M, P, 1);
        // the attacker did no work: garbage outputs, every leaf paid to itself
        Results memory fake = buildResults(id, M, P, "garbage", one(attacker));
        submit(id, attacker, fake.root);
        uint256 sybilWeight = registry.weightOf(sybil1) + registry.weightOf(sybil2);
        uint256 total = registry.totalWeight() - registry.weightOf(attacker);
        console.log("coalition's share of the draw weight, bps", sybilWeight * 10_000 / total);

        vm.roll(escrow.jobs(id).submitBlock + 2); // the entropy block is known; the submitter's free grace
        // the honest draw without any top-up
        uint256 snap = vm.snapshotState();
        vm.prank(attacker);
        escrow.selectVerifiers(id);
        bool honestDraw = _bothSybilsDrawn(id);
        vm.revertToState(snap);
        console.log("coalition majority without grinding (1 = yes)", honestDraw ? 1 : 0);

        // grinding: simulate the draw after topping sybil1 up by i * 1e13 wei (one unit of S = stakeCap / 1e6)
        uint256 topUp;
        uint256 tries;
        for (uint256 i = 1; i <= 2000; ++i) {
            snap = vm.snapshotState();
            vm.deal(sybil1, 1 ether);
            vm.prank(sybil1);
            registry.addStake{value: i * 1e13}();
            vm.prank(attacker);
            escrow.selectVerifiers(id);
            bool ok = _bothSybilsDrawn(id);
            vm.revertToState(snap);
            if (ok) {
                topUp = i * 1e13;
                tries = i;
                break;
            }
        }
        assertTrue(topUp != 0, "found a top-up");
        console.log("simulated draws", tries);
        console.log("top-up that wins the draw, wei", topUp);

        // the real thing, in the grace window (block submitBlock + 2)
        vm.deal(sybil1, 1 ether);
        vm.prank(sybil1);
        registry.addStake{value: topUp}();
        vm.prank(attacker);
        escrow.selectVerifiers(id);
        revealSeeds(id);
        assertTrue(_bothSybilsDrawn(id));

        _collude(id, fake);
    }

    function _collude(bytes32 id, Results memory fake) internal {
        // the two sybils "match" the garbage (same made-up digest), the honest verifier finds it wrong
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        Results memory honest = honestResults(id, M, P);
        Results[] memory v = new Results[](3);
        address honestVerifier;
        for (uint256 i; i < 3; ++i) {
            if (vs[i].node == sybil1 || vs[i].node == sybil2) {
                v[i] = fake;
            } else {
                v[i] = honest;
                honestVerifier = vs[i].node;
            }
        }
        uint256 honestStake0 = stakeOf(honestVerifier);
        commitViews(id, v, noBlame(3));
        vm.roll(block.number + 1);
        prove(id, fake);
        revealViews(id, fake, v, noBlame(3));
        escrow.settle(id);
        uint256 bal0 = attacker.balance;
        if (escrow.statusOf(id) == JobEscrowBase.Status.Released) claimAll(id, fake, P);

        console.log("status (3 = Released)", uint256(escrow.statusOf(id)));
        console.log("attacker claimed for garbage, wei", attacker.balance - bal0);
        console.log("sybils' verifier credits, wei", escrow.credits(sybil1) + escrow.credits(sybil2));
        console.log("honest verifier slashed, wei", honestStake0 - stakeOf(honestVerifier));
        // the gap: two sybils of ~13 % of the draw weight chose their draw and released garbage
        assertEq(uint256(escrow.statusOf(id)), uint256(JobEscrowBase.Status.Released), "garbage released");
        assertTrue(attacker.balance > bal0, "the submitter was paid for garbage");
    }
}
