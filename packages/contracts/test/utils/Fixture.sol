// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./Test.sol";
import {NodeRegistry} from "../../src/NodeRegistry.sol";
import {UncheckedPeerIdRegistry} from "./UncheckedPeerIdRegistry.sol";
import {JobEscrow} from "../../src/JobEscrow.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";
import {Encoding} from "../../src/libraries/Encoding.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";

/// @notice Shared deployment and lifecycle helpers.
abstract contract Fixture is Test {
    NodeRegistry internal registry;
    JobEscrow internal escrow;

    bytes32 internal constant GPU_A = keccak256("RTX4090");
    bytes32 internal constant GPU_B = keccak256("A100");
    bytes32 internal constant MODEL_X = keccak256("llama-3-8b");

    address internal creator = address(0xC0FFEE);
    address internal treasury = address(0x7EA5);
    uint256 internal nonceCounter;

    function registryParams() internal pure virtual returns (NodeRegistryBase.Params memory) {
        return NodeRegistryBase.Params({minStake: 1 ether, stakeCap: 10 ether, exitCooldown: 1 days, maxDrawAttempts: 64, probeInterval: 1 days});
    }

    function escrowParams() internal pure virtual returns (JobEscrowBase.Params memory) {
        return JobEscrowBase.Params({
            maxVerifiers: 7,
            maxSampleLeaves: 64,
            commitWindow: 20,
            revealWindow: 20,
            secondsPerBlock: 2,
            overheadMs: 30_000,
            msPerMicroJob: 1_000,
            alphaBps: 10000,
            queueMin: 16,
            maxDeadline: 30 days,
            claimWindow: 7 days,
            bondBps: 20000,
            drawPenaltyBps: 2500,
            minFee: 1000,
            treasury: address(0x7EA5)
        });
    }

    function deploy() internal {
        vm.warp(1_700_000_000);
        vm.roll(100);
        registry = new UncheckedPeerIdRegistry(registryParams());
        escrow = new JobEscrow(registry, escrowParams());
        registry.setEscrow(address(escrow));
        vm.deal(creator, 1_000_000 ether);
    }

    function nodeAddr(uint256 i) internal pure returns (address) {
        return address(uint160(0x100000 + i));
    }

    function peerIdOf(uint256 i) internal pure returns (string memory) {
        return string(abi.encodePacked("12D3KooW-node-", _itoa(i)));
    }

    function registerNode(uint256 i, bytes32 gpu, uint32 vram, uint256 stake) internal returns (address a) {
        a = nodeAddr(i);
        vm.deal(a, a.balance + stake);
        vm.prank(a);
        registry.register{value: stake}(peerIdOf(i), bytes32(0), "", gpu, vram);
        commitFirstSeed(a);
    }

    // ------------------------------------------------ verifier seeds

    /// @dev Node `a`'s seed number `index` (a real node derives it from its wallet key).
    function seedOf(address a, uint256 index) internal pure returns (bytes32) {
        return keccak256(abi.encode("seed", a, index));
    }

    function commitFirstSeed(address a) internal {
        vm.prank(a);
        escrow.commitSeed(keccak256(abi.encode(seedOf(a, 0))), 0);
    }

    /// @dev Verifier `a` of the job reveals its committed seed and commits the next one.
    function revealSeedOf(bytes32 jobId, address a) internal {
        (,, uint32 index) = escrow.seedCommits(a);
        vm.prank(a);
        escrow.revealSeed(jobId, seedOf(a, index), keccak256(abi.encode(seedOf(a, uint256(index) + 1))));
    }

    /// @dev Every assigned verifier that has not yet revealed its seed does so (fixing the sample).
    function revealSeeds(bytes32 jobId) internal {
        JobEscrowBase.Job memory j = escrow.jobs(jobId);
        if (j.assigned != j.k || j.entropySet) return;
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(jobId);
        for (uint256 i; i < vs.length; ++i) {
            if (!vs[i].seeded) revealSeedOf(jobId, vs[i].node);
        }
    }

    function registerMany(uint256 from, uint256 n, bytes32 gpu, uint32 vram, uint256 stake) internal {
        for (uint256 i = from; i < from + n; ++i) registerNode(i, gpu, vram, stake);
    }

    function jobParams(uint32 macroJobs, uint32 per, uint8 k) internal returns (JobEscrowBase.CreateJobParams memory p) {
        p.specCid = "bafy-spec";
        p.nonce = ++nonceCounter;
        p.jobRoot = keccak256("jobRoot");
        p.seed = 12345;
        p.macroJobs = macroJobs;
        p.microJobsPerMacro = per;
        p.minVramGb = 8;
        p.k = k;
        p.samples = 1;
        p.deadline = uint40(block.timestamp + 1 days);
        p.secondsPerMicroJob = 10;
    }

    function createJob(JobEscrowBase.CreateJobParams memory p, uint256 fee) internal returns (bytes32 id) {
        vm.prank(creator);
        id = escrow.createJob{value: fee}(p);
    }

    // ------------------------------------------------ positional result tree

    struct Results {
        bytes32[] leaves; // tree leaves by position m*per + i, zero-padded to a power of two
        bytes32[] outputs;
        address[] payees;
        bytes32 root;
        bytes32 execution; // the execution digest of a verifier that re-ran these outputs
    }

    /// @dev Outputs derived from `salt`; the payee of every MicroJob is `payees[pos % payees.length]`.
    function buildResults(bytes32 jobId, uint256 macroJobs, uint256 per, bytes32 salt, address[] memory payees)
        internal
        pure
        returns (Results memory r)
    {
        uint256 n = macroJobs * per;
        uint256 size = 1;
        while (size < n) size <<= 1;
        r.leaves = new bytes32[](size);
        r.outputs = new bytes32[](n);
        r.payees = new address[](n);
        for (uint256 pos; pos < n; ++pos) {
            r.outputs[pos] = keccak256(abi.encode("output", pos, salt));
            r.payees[pos] = payees[pos % payees.length];
        }
        r.execution = keccak256(abi.encode("execution", salt));
        r.root = _rebuild(jobId, per, r);
    }

    /// @dev Recomputes leaves and root after outputs or payees were changed.
    function _rebuild(bytes32 jobId, uint256 per, Results memory r) internal pure returns (bytes32) {
        for (uint256 pos; pos < r.outputs.length; ++pos) {
            uint256 m = pos / per;
            uint256 i = pos % per;
            r.leaves[pos] = Encoding.resultLeaf(Encoding.microId(12345, jobId, m, i), m, i, r.outputs[pos], r.payees[pos]);
        }
        r.root = merkleRoot(r.leaves);
        return r.root;
    }

    function merkleRoot(bytes32[] memory leaves) internal pure returns (bytes32) {
        bytes32[] memory level = leaves;
        while (level.length > 1) {
            bytes32[] memory next = new bytes32[](level.length / 2);
            for (uint256 i; i < next.length; ++i) next[i] = keccak256(abi.encodePacked(level[2 * i], level[2 * i + 1]));
            level = next;
        }
        return level[0];
    }

    function merkleProof(bytes32[] memory leaves, uint256 idx) internal pure returns (bytes32[] memory proof) {
        uint256 depth;
        for (uint256 s = leaves.length; s > 1; s >>= 1) ++depth;
        proof = new bytes32[](depth);
        bytes32[] memory level = leaves;
        for (uint256 d; d < depth; ++d) {
            proof[d] = level[idx ^ 1];
            bytes32[] memory next = new bytes32[](level.length / 2);
            for (uint256 i; i < next.length; ++i) next[i] = keccak256(abi.encodePacked(level[2 * i], level[2 * i + 1]));
            level = next;
            idx >>= 1;
        }
    }

    function leafAt(bytes32 jobId, Results memory r, uint256 per, uint256 pos)
        internal
        pure
        returns (JobEscrowBase.ResultLeaf memory)
    {
        uint256 m = pos / per;
        uint256 i = pos % per;
        return JobEscrowBase.ResultLeaf({
            microId: Encoding.microId(12345, jobId, m, i), macroIndex: m, index: i, outputHash: r.outputs[pos],
            payee: r.payees[pos]
        });
    }

    /// @dev Sample positions (global MicroJob positions) of the job's current round.
    function samplePositions(bytes32 jobId) internal view returns (uint256[] memory pos) {
        JobEscrowBase.Job memory j = escrow.jobs(jobId);
        uint256 s = j.samples;
        pos = new uint256[](uint256(j.macroJobs) * s);
        for (uint256 x; x < pos.length; ++x) {
            uint256 m = x / s;
            uint256 idx = (Encoding.validationIndex(j.seed, m, j.sampleEntropy, j.microJobsPerMacro) + x % s)
                % j.microJobsPerMacro;
            pos[x] = m * j.microJobsPerMacro + idx;
        }
    }

    /// @dev The sample leaves, proofs and leaf hashes of `r` (what proveSample takes / what a verifier expects).
    function sample(bytes32 jobId, Results memory r)
        internal
        view
        returns (JobEscrowBase.ResultLeaf[] memory leaves, bytes32[][] memory proofs, bytes32[] memory hashes)
    {
        uint256 per = escrow.jobs(jobId).microJobsPerMacro;
        uint256[] memory pos = samplePositions(jobId);
        leaves = new JobEscrowBase.ResultLeaf[](pos.length);
        proofs = new bytes32[][](pos.length);
        hashes = new bytes32[](pos.length);
        for (uint256 x; x < pos.length; ++x) {
            leaves[x] = leafAt(jobId, r, per, pos[x]);
            proofs[x] = merkleProof(r.leaves, pos[x]);
            hashes[x] = r.leaves[pos[x]];
        }
    }

    // ------------------------------------------------ lifecycle helpers

    /// @dev Submits naming no payee: every wrong leaf is then the submitter's fault.
    function submit(bytes32 jobId, address node, bytes32 resultRoot) internal {
        submitNaming(jobId, node, resultRoot, new address[](0));
    }

    /// @dev Submits naming `payees`, which join the job first (their bonds locked: each answers for its leaves).
    function submitNaming(bytes32 jobId, address node, bytes32 resultRoot, address[] memory payees) internal {
        for (uint256 i; i < payees.length; ++i) join(jobId, payees[i]);
        commitFirst(jobId, node, resultRoot);
        vm.prank(node);
        escrow.submitResults(jobId, resultRoot, "bafy-manifest", payees);
    }

    /// @dev `node` joins the job (a submission may then name it as a payee).
    function join(bytes32 jobId, address node) internal {
        vm.prank(node);
        escrow.joinJob(jobId);
    }

    /// @dev The first half of a submission, then a block: `node` may call submitResults next.
    function commitFirst(bytes32 jobId, address node, bytes32 resultRoot) internal {
        uint256 round = escrow.jobs(jobId).rejections;
        vm.prank(node);
        escrow.commitResults(jobId, Encoding.resultCommitment(jobId, round, resultRoot, "bafy-manifest", node));
        vm.roll(block.number + 1);
    }

    /// @dev Draws the verifiers and, when all k are assigned, reveals their seeds (the sample is then fixed).
    function select(bytes32 jobId) internal {
        vm.roll(block.number + 2);
        escrow.selectVerifiers(jobId);
        revealSeeds(jobId);
    }

    function prove(bytes32 jobId, Results memory r) internal {
        (JobEscrowBase.ResultLeaf[] memory leaves, bytes32[][] memory proofs,) = sample(jobId, r);
        escrow.proveSample(jobId, leaves, proofs);
    }

    /// @dev Verifier i commits to the sample hashes of `views[i]` (its own view of the truth) with `blame[i]`.
    function commitViews(bytes32 jobId, Results[] memory views, bool[] memory blame) internal {
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(jobId);
        for (uint256 i; i < vs.length; ++i) {
            if (views[i].leaves.length == 0) continue; // silent
            (,, bytes32[] memory h) = sample(jobId, views[i]);
            vm.prank(vs[i].node);
            escrow.commitVerification(
                jobId,
                Encoding.commitment(Encoding.verifierHash(h, views[i].execution), blame[i], bytes32(i + 1), vs[i].node)
            );
        }
    }

    function revealViews(bytes32 jobId, Results memory submitted, Results[] memory views, bool[] memory blame)
        internal
    {
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(jobId);
        (JobEscrowBase.ResultLeaf[] memory leaves,, bytes32[] memory proven) = sample(jobId, submitted);
        for (uint256 i; i < vs.length; ++i) {
            if (views[i].leaves.length == 0) continue;
            (,, bytes32[] memory h) = sample(jobId, views[i]);
            JobEscrowBase.ResultLeaf memory bad;
            for (uint256 p; p < h.length; ++p) {
                if (h[p] != proven[p]) {
                    bad = leaves[p];
                    break;
                }
            }
            vm.prank(vs[i].node);
            escrow.revealVerification(
                jobId,
                JobEscrowBase.Reveal({
                    salt: bytes32(i + 1),
                    processorBlame: blame[i],
                    executionDigest: views[i].execution,
                    expected: h,
                    proven: proven,
                    badLeaf: bad
                })
            );
        }
    }

    /// @dev A whole verification round: k verifiers with the given views, sample proven from `submitted`, settle.
    function verifyRound(bytes32 jobId, Results memory submitted, Results[] memory views, bool[] memory blame)
        internal
    {
        select(jobId);
        judge(jobId, submitted, views, blame);
    }

    /// @dev The drawn verifiers (seeds revealed) commit `views`, the sample is proven, they reveal and the job is
    ///      settled (past the windows when some stay silent).
    function judge(bytes32 jobId, Results memory submitted, Results[] memory views, bool[] memory blame) internal {
        commitViews(jobId, views, blame);
        JobEscrowBase.Job memory j0 = escrow.jobs(jobId);
        prove(jobId, submitted); // before the commit deadline (ProveWindowClosed after it)
        vm.roll(j0.commits < j0.k ? j0.commitDeadline + 1 : block.number + 1);
        revealViews(jobId, submitted, views, blame);
        JobEscrowBase.Job memory j = escrow.jobs(jobId);
        if (j.reveals < j.k) vm.roll(j.revealDeadline + 1);
        escrow.settle(jobId);
    }

    function views3(Results memory a, Results memory b, Results memory c) internal pure returns (Results[] memory v) {
        v = new Results[](3);
        v[0] = a;
        v[1] = b;
        v[2] = c;
    }

    function noBlame(uint256 n) internal pure returns (bool[] memory) {
        return new bool[](n);
    }

    function allBlame(uint256 n) internal pure returns (bool[] memory b) {
        b = new bool[](n);
        for (uint256 i; i < n; ++i) b[i] = true;
    }

    function one(address a) internal pure returns (address[] memory x) {
        x = new address[](1);
        x[0] = a;
    }

    function two(address a, address b) internal pure returns (address[] memory x) {
        x = new address[](2);
        x[0] = a;
        x[1] = b;
    }

    function copyResults(Results memory r) internal pure returns (Results memory c) {
        c.leaves = new bytes32[](r.leaves.length);
        c.outputs = new bytes32[](r.outputs.length);
        c.payees = new address[](r.payees.length);
        for (uint256 i; i < r.leaves.length; ++i) c.leaves[i] = r.leaves[i];
        for (uint256 i; i < r.outputs.length; ++i) {
            c.outputs[i] = r.outputs[i];
            c.payees[i] = r.payees[i];
        }
        c.root = r.root;
        c.execution = r.execution;
    }

    /// @dev Claims every leaf of `r` (one transaction).
    function claimAll(bytes32 jobId, Results memory r, uint256 per) internal {
        uint256 n = r.outputs.length;
        JobEscrowBase.ResultLeaf[] memory leaves = new JobEscrowBase.ResultLeaf[](n);
        bytes32[][] memory proofs = new bytes32[][](n);
        for (uint256 pos; pos < n; ++pos) {
            leaves[pos] = leafAt(jobId, r, per, pos);
            proofs[pos] = merkleProof(r.leaves, pos);
        }
        escrow.claim(jobId, leaves, proofs);
    }

    function _itoa(uint256 v) internal pure returns (string memory) {
        if (v == 0) return "0";
        bytes memory b;
        while (v != 0) {
            b = abi.encodePacked(bytes1(uint8(48 + v % 10)), b);
            v /= 10;
        }
        return string(b);
    }
}
