// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./Test.sol";
import {NodeRegistry} from "../../src/NodeRegistry.sol";
import {JobEscrow} from "../../src/JobEscrow.sol";
import {Encoding} from "../../src/libraries/Encoding.sol";

/// @notice Shared deployment and lifecycle helpers.
abstract contract Fixture is Test {
    NodeRegistry internal registry;
    JobEscrow internal escrow;

    bytes32 internal constant GPU_A = keccak256("RTX4090");
    bytes32 internal constant GPU_B = keccak256("A100");
    bytes32 internal constant MODEL_X = keccak256("llama-3-8b");

    address internal creator = address(0xC0FFEE);
    uint256 internal nonceCounter;

    function registryParams() internal pure virtual returns (NodeRegistry.Params memory) {
        return NodeRegistry.Params({
            minStake: 1 ether,
            stakeCap: 10 ether,
            exitCooldown: 1 days,
            slashBps: 5000,
            maxDrawAttempts: 64
        });
    }

    function escrowParams() internal pure virtual returns (JobEscrow.Params memory) {
        return JobEscrow.Params({
            processorBps: 8000,
            maxVerifiers: 15,
            commitWindow: 20,
            revealWindow: 20,
            overheadSeconds: 30,
            alphaBps: 10000,
            queueMin: 16,
            minFee: 1000
        });
    }

    function deploy() internal {
        vm.warp(1_700_000_000);
        vm.roll(100);
        registry = new NodeRegistry(registryParams());
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
        registry.register{value: stake}(peerIdOf(i), gpu, vram);
    }

    function registerMany(uint256 from, uint256 n, bytes32 gpu, uint32 vram, uint256 stake) internal {
        for (uint256 i = from; i < from + n; ++i) registerNode(i, gpu, vram, stake);
    }

    function jobParams(uint32 macroJobs, uint32 per, uint8 k) internal returns (JobEscrow.CreateJobParams memory p) {
        p.specCid = "bafy-spec";
        p.nonce = ++nonceCounter;
        p.jobRoot = keccak256("jobRoot");
        p.seed = 12345;
        p.macroJobs = macroJobs;
        p.microJobsPerMacro = per;
        p.minVramGb = 8;
        p.k = k;
        p.deadline = uint40(block.timestamp + 1 days);
        p.secondsPerMicroJob = 10;
    }

    function createJob(JobEscrow.CreateJobParams memory p, uint256 fee) internal returns (bytes32 id) {
        vm.prank(creator);
        id = escrow.createJob{value: fee}(p);
    }

    // ------------------------------------------------ result tree (all micro jobs, per = 1 or 2; power-of-two leaves)

    struct Results {
        bytes32[] leaves; // tree leaves in order m*per + i
        bytes32[] outputs;
        bytes32 root;
    }

    function buildResults(bytes32 jobId, uint256 seed, uint256 macroJobs, uint256 per, bytes32 salt)
        internal
        pure
        returns (Results memory r)
    {
        uint256 n = macroJobs * per;
        uint256 size = 1;
        while (size < n) size <<= 1;
        r.leaves = new bytes32[](size);
        r.outputs = new bytes32[](n);
        for (uint256 m; m < macroJobs; ++m) {
            for (uint256 i; i < per; ++i) {
                bytes32 out = keccak256(abi.encode("output", m, i, salt));
                r.outputs[m * per + i] = out;
                r.leaves[m * per + i] = Encoding.resultLeaf(Encoding.microId(seed, jobId, m, i), m, i, out);
            }
        }
        for (uint256 x = n; x < size; ++x) r.leaves[x] = keccak256(abi.encode("pad", x));
        r.root = merkleRoot(r.leaves);
    }

    function hashPair(bytes32 a, bytes32 b) internal pure returns (bytes32) {
        return a < b ? keccak256(abi.encode(a, b)) : keccak256(abi.encode(b, a));
    }

    function merkleRoot(bytes32[] memory leaves) internal pure returns (bytes32) {
        bytes32[] memory level = leaves;
        while (level.length > 1) {
            bytes32[] memory next = new bytes32[](level.length / 2);
            for (uint256 i; i < next.length; ++i) next[i] = hashPair(level[2 * i], level[2 * i + 1]);
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
            for (uint256 i; i < next.length; ++i) next[i] = hashPair(level[2 * i], level[2 * i + 1]);
            level = next;
            idx >>= 1;
        }
    }

    function sample(bytes32 jobId, Results memory r, uint256 macroJobs, uint256 per)
        internal
        view
        returns (JobEscrow.ResultLeaf[] memory leaves, bytes32[][] memory proofs, bytes32 vHash)
    {
        JobEscrow.Job memory j = escrow.jobs(jobId);
        leaves = new JobEscrow.ResultLeaf[](macroJobs);
        proofs = new bytes32[][](macroJobs);
        bytes32[] memory outs = new bytes32[](macroJobs);
        for (uint256 m; m < macroJobs; ++m) {
            uint256 idx = Encoding.validationIndex(j.seed, m, j.sampleEntropy, per);
            leaves[m] = JobEscrow.ResultLeaf({
                microId: Encoding.microId(j.seed, jobId, m, idx),
                macroIndex: m,
                index: idx,
                outputHash: r.outputs[m * per + idx]
            });
            proofs[m] = merkleProof(r.leaves, m * per + idx);
            outs[m] = r.outputs[m * per + idx];
        }
        vHash = Encoding.verifierHash(outs);
    }

    // ------------------------------------------------ lifecycle helpers

    function submit(bytes32 jobId, address node, bytes32 resultRoot, bytes32 payoutRoot) internal {
        vm.prank(node);
        escrow.submitResults(jobId, resultRoot, payoutRoot, "bafy-manifest");
    }

    function select(bytes32 jobId) internal {
        vm.roll(block.number + 2);
        escrow.selectVerifiers(jobId);
    }

    function commitAll(bytes32 jobId, bytes32[] memory hashes) internal {
        JobEscrow.Verifier[] memory vs = escrow.verifiersOf(jobId);
        for (uint256 i; i < vs.length; ++i) {
            vm.prank(vs[i].node);
            escrow.commitVerification(jobId, Encoding.commitment(hashes[i], bytes32(i + 1), vs[i].node));
        }
    }

    function revealAll(bytes32 jobId, bytes32[] memory hashes) internal {
        JobEscrow.Verifier[] memory vs = escrow.verifiersOf(jobId);
        for (uint256 i; i < vs.length; ++i) {
            vm.prank(vs[i].node);
            escrow.revealVerification(jobId, hashes[i], bytes32(i + 1));
        }
    }

    function same(bytes32 h, uint256 n) internal pure returns (bytes32[] memory a) {
        a = new bytes32[](n);
        for (uint256 i; i < n; ++i) a[i] = h;
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
