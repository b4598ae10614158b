// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {NodeRegistry} from "../src/NodeRegistry.sol";
import {UncheckedPeerIdRegistry} from "./utils/UncheckedPeerIdRegistry.sol";
import {NodeRegistryBase} from "../src/registry/NodeRegistryBase.sol";
import {drawRequest} from "./utils/DrawRequests.sol";

/// The draw over (GPU model, VRAM tier) groups: it looks only at the groups a job may use and finds an idle eligible
/// node whenever one exists. This contract plays the escrow.
contract NodeRegistryGroupsTest is Test {
    NodeRegistry reg;
    bytes32 constant GPU_A = keccak256("RTX4060");
    bytes32 constant GPU_B = keccak256("A100");
    bytes32 constant GPU_C = keccak256("H100");
    bytes32 constant MODEL_X = keccak256("llama");

    function onNodeAvailable(address) external {}

    receive() external payable {}

    function setUp() public {
        vm.warp(1_700_000_000);
        reg = new UncheckedPeerIdRegistry(
            NodeRegistryBase.Params({minStake: 1 ether, stakeCap: 10 ether, exitCooldown: 1 days, maxDrawAttempts: 64, probeInterval: 1 days})
        );
        reg.setEscrow(address(this));
    }

    function node(uint256 i) internal pure returns (address) {
        return address(uint160(0xB0000 + i));
    }

    function reg1(uint256 i, bytes32 gpu, uint32 vram, uint256 stake) internal returns (address a) {
        a = node(i);
        vm.deal(a, stake);
        vm.prank(a);
        reg.register{value: stake}(string(abi.encodePacked("peer-", bytes32(i))), bytes32(0), "", gpu, vram);
    }

    function req(bytes32 e, uint8 need, uint32 minVram, bytes32 gpu, bytes32 modelId, bool identical, address excl)
        internal
        pure
        returns (NodeRegistryBase.DrawRequest memory)
    {
        return drawRequest(e, keccak256(abi.encode(e, "job")), need, minVram, gpu, modelId, identical, excl);
    }

    function releaseAll(address[] memory d) internal {
        for (uint256 i; i < d.length; ++i) reg.release(d[i], 0, 0, false, bytes32(0));
    }

    function test_vramTiers() public {
        uint32[10] memory vram = [uint32(1), 3, 4, 7, 8, 11, 24, 47, 80, 200];
        uint32[10] memory grade = [uint32(1), 1, 4, 6, 8, 10, 24, 40, 80, 128];
        for (uint256 i; i < vram.length; ++i) {
            (, uint32 g) = reg.vramTier(vram[i]);
            assertEq(uint256(g), uint256(grade[i]));
        }
        (uint256 t,) = reg.vramTier(1);
        assertEq(t, 0);
        (t,) = reg.vramTier(500);
        assertEq(t, reg.TIER_COUNT() - 1);
        address a = reg1(1, GPU_B, 47, 2 ether);
        (bytes32 m, uint32 gb) = reg.nodeGrade(a);
        assertEq(m, GPU_B);
        assertEq(uint256(gb), 40);
        (, uint32 v) = reg.nodeHardware(a);
        assertEq(uint256(v), 47); // the declared VRAM is kept (R score)
        assertEq(reg.tierWeight(GPU_B, 10), reg.weightOf(a));
        assertEq(reg.tierWeight(bytes32(0), 10), reg.weightOf(a));
        assertEq(reg.tierWeight(GPU_B, 11), 0);
        // a 47 GB node serves jobs up to its 40 GB grade
        (address[] memory d,,) = reg.draw(req(keccak256("a"), 1, 41, bytes32(0), bytes32(0), false, address(0)));
        assertEq(d.length, 0);
        (d,,) = reg.draw(req(keccak256("b"), 1, 40, bytes32(0), bytes32(0), false, address(0)));
        assertEq(d.length, 1);
    }

    /// Issue case: 201 idle 8 GB nodes and one idle 80 GB node; 20 of 20 jobs needing 48 GB find the 80 GB node
    /// (each after the previous one released it), also when the submitter is one of the small nodes.
    function test_bigNodeAmongManySmall() public {
        for (uint256 i; i < 201; ++i) reg1(i, GPU_A, 8, 1 ether + i * 0.01 ether);
        address big = reg1(500, GPU_B, 80, 1 ether);
        for (uint256 j; j < 20; ++j) {
            address sub = j % 2 == 0 ? address(0) : node(j);
            (address[] memory d,,) =
                reg.draw(req(keccak256(abi.encode("job", j)), 1, 48, bytes32(0), bytes32(0), false, sub));
            assertEq(d.length, 1);
            assertEq(d[0], big);
            // nothing else qualifies while it is busy
            (address[] memory none,,) =
                reg.draw(req(keccak256(abi.encode("more", j)), 1, 48, bytes32(0), bytes32(0), false, address(0)));
            assertEq(none.length, 0);
            releaseAll(d);
        }
        // with enough such nodes: k = 3 verifiers at once, never a small node
        reg1(501, GPU_C, 80, 1 ether);
        reg1(502, GPU_B, 48, 1 ether);
        for (uint256 j; j < 20; ++j) {
            (address[] memory d,,) =
                reg.draw(req(keccak256(abi.encode("k3", j)), 3, 48, bytes32(0), MODEL_X, false, address(0)));
            assertEq(d.length, 3);
            for (uint256 i; i < 3; ++i) assertTrue(d[i] == big || d[i] == node(501) || d[i] == node(502));
            releaseAll(d);
        }
    }

    /// Issue case: 3 idle 80 GB nodes of one model among other models and sizes: 20 of 20 same-model jobs draw all
    /// three (the job's own model, and identical hardware choosing that model).
    function test_sameModelNodesAlwaysDrawn() public {
        for (uint256 i; i < 60; ++i) reg1(i, i % 2 == 0 ? GPU_A : GPU_C, i % 3 == 0 ? 80 : 24, 1 ether + i * 0.1 ether);
        for (uint256 i; i < 20; ++i) reg1(100 + i, GPU_B, 16, 5 ether); // the model, too little VRAM
        address[3] memory mine = [reg1(200, GPU_B, 80, 1 ether), reg1(201, GPU_B, 80, 2 ether), reg1(202, GPU_B, 96, 1 ether)];
        for (uint256 j; j < 20; ++j) {
            (address[] memory d,, bytes32 chosen) = reg.draw(
                req(keccak256(abi.encode("same", j)), 3, 48, GPU_B, j % 2 == 0 ? MODEL_X : bytes32(0), j % 3 == 0, address(0))
            );
            assertEq(d.length, 3);
            assertEq(chosen, GPU_B);
            for (uint256 i; i < 3; ++i) assertTrue(d[i] == mine[0] || d[i] == mine[1] || d[i] == mine[2]);
            assertTrue(d[0] != d[1] && d[1] != d[2] && d[0] != d[2]);
            releaseAll(d);
        }
    }

    /// Over many draws of varied jobs, a drawn node never has a grade below the job's minimum VRAM, another model
    /// than the required one, or is the submitter; identical hardware keeps one model.
    function test_drawNeverOutsideTheJobsGroups() public {
        bytes32[3] memory gpus = [GPU_A, GPU_B, GPU_C];
        uint32[6] memory sizes = [uint32(8), 12, 16, 24, 48, 80];
        for (uint256 i; i < 90; ++i) reg1(i, gpus[i % 3], sizes[(i / 3) % 6], 1 ether + (i % 7) * 1 ether);
        for (uint256 j; j < 60; ++j) {
            uint256 h = uint256(keccak256(abi.encode(j)));
            uint32 minVram = uint32(h % 90);
            bytes32 gpu = h >> 8 & 3 == 3 ? bytes32(0) : gpus[(h >> 8) % 3];
            bool identical = (h >> 16) & 1 == 1;
            address sub = node((h >> 24) % 90);
            (address[] memory d,, bytes32 chosen) =
                reg.draw(req(bytes32(h), uint8(1 + (h >> 32) % 5), minVram, gpu, bytes32(0), identical, sub));
            for (uint256 i; i < d.length; ++i) {
                (bytes32 m, uint32 g) = reg.nodeGrade(d[i]);
                assertGe(uint256(g), uint256(minVram), "below min VRAM");
                if (gpu != bytes32(0)) assertEq(m, gpu);
                if (identical) assertEq(m, chosen);
                assertTrue(d[i] != sub);
            }
            releaseAll(d);
        }
    }

    /// Fuzz: the draw against a brute-force list of the eligible nodes. Random hardware, stakes, paused and busy
    /// nodes, a submitter, a minimum VRAM, a required model or identical hardware, a model multiplier: the draw
    /// returns min(need, #eligible) distinct eligible nodes (for identical hardware without a required model: of
    /// the model of the first one), and the weight views stay the sums of the idle eligible nodes' weights.
    struct Job {
        uint8 need;
        uint32 minVram;
        bytes32 gpu;
        bool identical;
        address sub;
        bytes32 modelId;
    }

    function testFuzz_drawFindsIffEligible(uint256 seed, uint8 needRaw, uint32 minVramRaw, uint8 modeRaw) public {
        address[] memory all = _population(seed);
        bytes32[3] memory gpus = [GPU_A, GPU_B, GPU_C];
        uint32[7] memory sizes = [uint32(4), 8, 11, 16, 24, 48, 80];
        Job memory j;
        j.need = uint8(1 + needRaw % 6);
        uint256 mv = minVramRaw % 9; // a size, one less, 0 or more than any tier
        j.minVram = mv == 7 ? 0 : mv == 8 ? 200 : sizes[mv] - ((minVramRaw >> 8) % 2 == 1 ? 1 : 0);
        j.gpu = modeRaw % 3 == 0 ? gpus[(modeRaw >> 2) % 3] : bytes32(0);
        j.identical = modeRaw % 3 == 1;
        j.sub = all[(seed >> 64) % all.length];
        j.modelId = (modeRaw >> 4) & 1 == 1 ? MODEL_X : bytes32(0);

        (address[] memory d,, bytes32 chosen) =
            reg.draw(req(keccak256(abi.encode(seed, "e")), j.need, j.minVram, j.gpu, j.modelId, j.identical, j.sub));
        // brute force, after the fact: eligible = idle before the draw (drawn now, or still eligible)
        bytes32 model = j.identical && j.gpu == bytes32(0) ? chosen : j.gpu;
        uint256 eligible;
        for (uint256 i; i < all.length; ++i) {
            if (_eligibleFor(all[i], d, j.minVram, model, j.sub)) ++eligible;
        }
        assertEq(d.length, eligible < j.need ? eligible : j.need, "found != min(need, eligible)");
        for (uint256 i; i < d.length; ++i) {
            assertTrue(_eligibleFor(d[i], d, j.minVram, model, j.sub), "drew an ineligible node");
            for (uint256 k; k < i; ++k) assertTrue(d[i] != d[k], "drew a node twice");
        }
        _checkSums(all);
        releaseAll(d);
        _checkSums(all);
    }

    /// 6..25 nodes of three models and seven VRAM sizes, varied stakes; some paused, some busy, some with the
    /// job's model as their last model.
    function _population(uint256 seed) internal returns (address[] memory all) {
        bytes32[3] memory gpus = [GPU_A, GPU_B, GPU_C];
        uint32[7] memory sizes = [uint32(4), 8, 11, 16, 24, 48, 80];
        all = new address[](6 + seed % 20);
        for (uint256 i; i < all.length; ++i) {
            uint256 h = uint256(keccak256(abi.encode(seed, i)));
            all[i] = reg1(i, gpus[h % 3], sizes[(h >> 8) % 7], 1 ether + ((h >> 16) % 20) * 0.5 ether);
            if ((h >> 32) % 5 == 0) {
                vm.prank(all[i]);
                reg.pause();
            } else if ((h >> 40) % 5 == 0) {
                assertTrue(reg.assign(all[i])); // busy
            } else if ((h >> 48) % 7 == 0) {
                reg.release(all[i], 0, 0, false, MODEL_X); // last model = the job's (a verification of it revealed)
            }
        }
    }

    /// Eligible for the job before the draw: drawn by it, or idle and eligible now; grade, model, not the submitter.
    function _eligibleFor(address a, address[] memory d, uint32 minVram, bytes32 gpu, address sub)
        internal
        view
        returns (bool)
    {
        if (a == sub) return false;
        bool drawn;
        for (uint256 i; i < d.length; ++i) if (d[i] == a) drawn = true;
        if (!drawn && !reg.isEligible(a)) return false;
        if (reg.selectionWeight(reg.nodeInfo(a).stake, reg.scoreOf(a)) == 0) return false;
        (bytes32 m, uint32 g) = reg.nodeGrade(a);
        return g >= minVram && (gpu == bytes32(0) || m == gpu);
    }

    function _checkSums(address[] memory all) internal view {
        uint256 total;
        uint256[3] memory per;
        bytes32[3] memory gpus = [GPU_A, GPU_B, GPU_C];
        for (uint256 i; i < all.length; ++i) {
            uint256 w = reg.weightOf(all[i]);
            total += w;
            for (uint256 g; g < 3; ++g) if (reg.nodeInfo(all[i]).gpuModel == gpus[g]) per[g] += w;
        }
        assertEq(reg.totalWeight(), total, "totalWeight");
        for (uint256 g; g < 3; ++g) assertEq(reg.groupWeight(gpus[g]), per[g], "groupWeight");
    }

    /// Fuzz: a random sequence of state changes (pause, resume, assign, release with a score, slash, add stake,
    /// exit, draws of random jobs) keeps every index exact: each (model, tier) group's weight, each tier's total, each
    /// model's total and the grand total are the sums of the idle eligible nodes' weights.
    /// forge-config: default.fuzz.runs = 64
    function testFuzz_opsKeepGroupIndexesExact(uint256 seed) public {
        address[] memory all = _population(seed);
        for (uint256 step; step < 30; ++step) {
            uint256 h = uint256(keccak256(abi.encode(seed, "op", step)));
            address a = all[(h >> 8) % all.length];
            uint256 op = h % 8;
            NodeRegistryBase.NodeView memory v = reg.nodeInfo(a);
            if (op == 0 && v.registered && !v.paused && !v.exiting) {
                vm.prank(a);
                reg.pause();
            } else if (op == 1 && v.paused && !v.exiting) {
                vm.prank(a);
                reg.resume();
            } else if (op == 2) {
                reg.assign(a);
            } else if (op == 3 && v.busy) {
                reg.release(a, (h >> 16) % 2001, (h >> 32) % 2, true, bytes32(0));
            } else if (op == 4) {
                reg.slash(a, ((h >> 16) % 4) * 0.5 ether);
            } else if (op == 5 && v.registered) {
                vm.deal(a, 1 ether);
                vm.prank(a);
                reg.addStake{value: 1 ether}();
            } else if (op == 6 && v.registered && !v.exiting) {
                vm.prank(a);
                reg.requestExit();
            } else if (op == 7) {
                (address[] memory d,,) = reg.draw(
                    req(bytes32(h), uint8(1 + (h >> 16) % 4), uint32((h >> 24) % 90), bytes32(0), bytes32(0), false, a)
                );
                if ((h >> 40) & 1 == 1) releaseAll(d);
            }
            _checkGroups(all);
        }
    }

    function _checkGroups(address[] memory all) internal view {
        bytes32[3] memory gpus = [GPU_A, GPU_B, GPU_C];
        uint256[16][3] memory sums;
        for (uint256 i; i < all.length; ++i) {
            NodeRegistryBase.NodeView memory v = reg.nodeInfo(all[i]);
            (uint256 t,) = reg.vramTier(v.vramGb);
            for (uint256 g; g < 3; ++g) if (v.gpuModel == gpus[g]) sums[g][t] += v.weight;
        }
        uint256 total;
        for (uint256 t; t < 16; ++t) {
            uint256 tierSum;
            for (uint256 g; g < 3; ++g) {
                assertEq(reg.tierWeight(gpus[g], t), sums[g][t], "group weight");
                tierSum += sums[g][t];
            }
            assertEq(reg.tierWeight(bytes32(0), t), tierSum, "tier weight");
            total += tierSum;
        }
        assertEq(reg.totalWeight(), total, "total weight");
        _checkSums(all);
    }
}
