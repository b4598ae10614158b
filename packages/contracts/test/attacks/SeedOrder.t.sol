// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";
import {Encoding} from "../../src/libraries/Encoding.sol";

/// The sample used to chain keccak256 over the seeds in reveal order (mix = keccak256(mix, seed)). Honest peers reveal
/// at once on VerifierAssigned; two colluding verifiers that reveal after every honest one know all the seeds and could
/// pick which of them reveals first: two samples to choose from, at no cost (nobody withholds anything). With k = 5
/// (3 honest, 2 colluders: a minority the majority rule is meant to tolerate) that squared the cheating submitter's
/// chance of escaping. The seeds are now combined in an order-independent way (XOR of keccak256(jobId, seed)).
contract SeedOrderTest is AttackBase {
    uint32 constant M = 4;
    uint32 constant P = 8;

    function setUp() public override {
        super.setUp();
        registerMany(7, 1, GPU_A, 24, 2 ether); // 7 nodes besides the submitter: k = 5 can be drawn
    }

    struct Round {
        bytes32 id;
        Results fake;
        address c1;
        address c2;
    }

    /// A job of k = 5 whose fake (MicroJob 0 of every MacroJob, paid to the submitter) is submitted and drawn; the
    /// three honest verifiers (vs[0..2]) revealed their seeds, the colluders (vs[3], vs[4]) have not.
    function _setupRound(uint256 nonce) internal returns (Round memory r) {
        vm.roll(block.number + 1 + nonce % 1000); // another draw blockhash per try
        JobEscrowBase.CreateJobParams memory p = jobParams(M, P, 5);
        p.nonce = nonce;
        r.id = createJob(p, FEE);
        r.fake = copyResults(honestResults(r.id, M, P));
        for (uint256 m; m < M; ++m) {
            r.fake.outputs[m * P] = keccak256(abi.encode("fake", m));
            r.fake.payees[m * P] = attacker;
        }
        _rebuild(r.id, P, r.fake);
        submit(r.id, attacker, r.fake.root);
        vm.roll(block.number + 2);
        vm.prank(attacker);
        escrow.selectVerifiers(r.id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(r.id);
        for (uint256 i; i < 3; ++i) revealSeedOf(r.id, vs[i].node);
        r.c1 = vs[3].node;
        r.c2 = vs[4].node;
    }

    function _hits(bytes32 id) internal view returns (bool) {
        JobEscrowBase.Job memory j = escrow.jobs(id);
        for (uint256 m; m < M; ++m) {
            if (Encoding.validationIndex(j.seed, m, j.sampleEntropy, P) == 0) return true;
        }
        return false;
    }

    /// The sample after the colluders reveal in the order (a, b).
    function _entropyInOrder(Round memory r, address a, address b) internal returns (bytes32 e, bool hit) {
        uint256 snap = vm.snapshotState();
        revealSeedOf(r.id, a);
        revealSeedOf(r.id, b);
        e = escrow.jobs(r.id).sampleEntropy;
        hit = _hits(r.id);
        vm.revertToState(snap);
    }

    /// Over 40 jobs the two reveal orders of the colluders give the same sample, so choosing the order catches the
    /// fake exactly as often as a fixed order does.
    function test_theRevealOrderDoesNotChangeTheSample() public {
        uint256 hitsFixed;
        uint256 hitsChosen;
        for (uint256 n; n < 40; ++n) {
            uint256 snap = vm.snapshotState();
            Round memory r = _setupRound(1000 + n);
            (bytes32 a, bool hitA) = _entropyInOrder(r, r.c1, r.c2);
            (bytes32 b, bool hitB) = _entropyInOrder(r, r.c2, r.c1);
            assertEq(a, b, "the reveal order must not change the sample");
            if (hitA) ++hitsFixed;
            if (hitA && hitB) ++hitsChosen;
            vm.revertToState(snap);
        }
        assertTrue(hitsFixed > 0, "some samples catch the fake");
        assertEq(hitsChosen, hitsFixed, "choosing the order saves no fake");
    }

    /// The concrete attack: a job where the order (c1, c2) catches the fake and the former reveal-order mix would have
    /// missed it with (c2, c1). The colluders reveal (c2, c1) and vote "match"; the three honest verifiers still see
    /// the fake and reject the submission, slashing the submitter the bond.
    function test_colludersRevealingLastCannotPickASampleThatMissesTheFake() public {
        Round memory r;
        bool found;
        for (uint256 n; n < 200 && !found; ++n) {
            uint256 snap = vm.snapshotState();
            r = _setupRound(5000 + n);
            (, bool hit) = _entropyInOrder(r, r.c1, r.c2);
            if (hit && !_formerMixHits(r, r.c2, r.c1)) {
                found = true;
                break;
            }
            vm.revertToState(snap);
        }
        assertTrue(found, "a job where the order used to decide");
        revealSeedOf(r.id, r.c2);
        revealSeedOf(r.id, r.c1);
        assertTrue(_hits(r.id), "the sample still catches the fake");

        Results memory honest = honestResults(r.id, M, P);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(r.id);
        Results[] memory v = new Results[](5);
        for (uint256 i; i < 5; ++i) v[i] = vs[i].node == r.c1 || vs[i].node == r.c2 ? r.fake : honest;
        uint256 stake0 = stakeOf(attacker);
        uint256 bond = escrow.bondOf(r.id);
        commitViews(r.id, v, noBlame(5));
        vm.roll(block.number + 1);
        prove(r.id, r.fake);
        revealViews(r.id, r.fake, v, noBlame(5));
        escrow.settle(r.id);
        JobEscrowBase.Job memory j = escrow.jobs(r.id);
        assertEq(uint256(j.status), uint256(JobEscrowBase.Status.Open), "rejected");
        assertEq(j.rejections, 1);
        assertEq(stake0 - stakeOf(attacker), bond, "the submitter is slashed the bond");
    }

    /// Whether the former mix (keccak256 chained over the seeds in reveal order, honest ones first) would have caught
    /// the fake with the colluders revealing (a, b): picks the jobs where the order used to matter.
    function _formerMixHits(Round memory r, address a, address b) internal view returns (bool) {
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(r.id);
        bytes32 mix;
        for (uint256 i; i < 3; ++i) mix = keccak256(abi.encode(mix, _revealedSeed(vs[i].node)));
        (,, uint32 ia) = escrow.seedCommits(a);
        (,, uint32 ib) = escrow.seedCommits(b);
        mix = keccak256(abi.encode(keccak256(abi.encode(mix, seedOf(a, ia))), seedOf(b, ib)));
        JobEscrowBase.Job memory j = escrow.jobs(r.id);
        bytes32 e = keccak256(abi.encode(j.drawEntropy, mix));
        for (uint256 m; m < M; ++m) if (Encoding.validationIndex(j.seed, m, e, P) == 0) return true;
        return false;
    }

    /// The seed an honest verifier revealed in this round: the one before its current commitment.
    function _revealedSeed(address node) internal view returns (bytes32) {
        (,, uint32 index) = escrow.seedCommits(node);
        return seedOf(node, uint256(index) - 1);
    }
}
