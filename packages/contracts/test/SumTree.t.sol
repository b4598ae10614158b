// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {SumTree} from "../src/libraries/SumTree.sol";

contract SumTreeHarness {
    using SumTree for SumTree.Tree;

    SumTree.Tree internal t;

    function push(uint256 w) external returns (uint256) {
        return t.push(w);
    }

    function update(uint256 s, uint256 w) external {
        t.update(s, w);
    }

    function get(uint256 s) external view returns (uint256) {
        return t.get(s);
    }

    function total() external view returns (uint256) {
        return t.total();
    }

    function find(uint256 r) external view returns (uint256) {
        return t.find(r);
    }

    function size() external view returns (uint256) {
        return t.size;
    }

    function levels() external view returns (uint256) {
        return t.levels;
    }
}

contract SumTreeTest is Test {
    SumTreeHarness h;

    function setUp() public {
        h = new SumTreeHarness();
    }

    function test_emptyTree() public {
        assertEq(h.total(), 0);
        assertEq(h.get(5), 0);
        vm.expectRevert(SumTree.SumTreeEmpty.selector);
        h.find(0);
    }

    function test_pushFindTotal() public {
        h.push(3);
        h.push(0);
        h.push(5);
        h.push(2);
        assertEq(h.total(), 10);
        assertEq(h.find(0), 0);
        assertEq(h.find(2), 0);
        assertEq(h.find(3), 2);
        assertEq(h.find(7), 2);
        assertEq(h.find(8), 3);
        assertEq(h.find(9), 3);
        vm.expectRevert(SumTree.SumTreeOutOfRange.selector);
        h.find(10);
    }

    function test_growsLevels() public {
        for (uint256 i; i < 65; ++i) h.push(1);
        assertEq(h.levels(), 3); // 8^2 = 64 < 65 <= 512
        assertEq(h.total(), 65);
        for (uint256 r; r < 65; ++r) assertEq(h.find(r), r);
    }

    function test_updateAndRemove() public {
        for (uint256 i; i < 10; ++i) h.push(i + 1);
        h.update(4, 0);
        assertEq(h.total(), 55 - 5);
        h.update(4, 100);
        assertEq(h.total(), 150);
        assertEq(h.get(4), 100);
        assertEq(h.find(10), 4);
    }

    function test_updateOutOfRangeReverts() public {
        h.push(1);
        vm.expectRevert(SumTree.SumTreeOutOfRange.selector);
        h.update(1, 3);
    }

    function test_weightTooLargeReverts() public {
        h.push(1);
        h.update(0, SumTree.MAX_LEAF);
        vm.expectRevert(SumTree.SumTreeWeightTooLarge.selector);
        h.update(0, SumTree.MAX_LEAF + 1);
        vm.expectRevert(SumTree.SumTreeWeightTooLarge.selector);
        h.push(SumTree.MAX_LEAF + 1);
    }

    /// 40 000 leaves at MAX_LEAF: the five 8-ary 32-bit levels do not overflow, the tree grows into the 4-ary
    /// 64-bit levels (6 levels: 32 768 < 40 000 <= 131 072) and search and updates stay exact across the boundary.
    function test_maxLeavesAcrossWideLevels() public {
        uint256 m = SumTree.MAX_LEAF;
        uint256 n = 40_000;
        for (uint256 i; i < n; ++i) h.push(m);
        assertEq(h.levels(), 6);
        assertEq(h.total(), n * m);
        uint256[6] memory probe = [uint256(0), 4095, 4096, 32_767, 32_768, n - 1];
        for (uint256 x; x < probe.length; ++x) {
            assertEq(h.find(probe[x] * m), probe[x]);
            assertEq(h.find(probe[x] * m + m - 1), probe[x]);
        }
        h.update(32_768, 0);
        assertEq(h.total(), (n - 1) * m);
        assertEq(h.find(32_768 * m), 32_769);
        assertEq(h.find(32_768 * m - 1), 32_767);
        h.update(32_768, 7);
        assertEq(h.find(32_768 * m + 6), 32_768);
        assertEq(h.find(32_768 * m + 7), 32_769);
    }

    /// Fuzz: the tree matches a naive array model for totals, weights and prefix-sum search.
    function testFuzz_matchesNaiveModel(uint256 seed, uint8 nPush, uint8 nUpd) public {
        uint256 n = bound(nPush, 1, 200);
        uint256[] memory model = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            uint256 w = uint256(keccak256(abi.encode(seed, i))) % 1000;
            model[i] = w;
            assertEq(h.push(w), i);
        }
        uint256 u = bound(nUpd, 0, 60);
        for (uint256 x; x < u; ++x) {
            uint256 rnd = uint256(keccak256(abi.encode(seed, "u", x)));
            uint256 s = rnd % n;
            uint256 w = (rnd >> 128) % 3 == 0 ? 0 : (rnd >> 64) % (SumTree.MAX_LEAF + 1);
            model[s] = w;
            h.update(s, w);
        }
        uint256 tot;
        for (uint256 i; i < n; ++i) {
            tot += model[i];
            assertEq(h.get(i), model[i]);
        }
        assertEq(h.total(), tot);
        if (tot == 0) return;
        for (uint256 x; x < 20; ++x) {
            uint256 r = uint256(keccak256(abi.encode(seed, "r", x))) % tot;
            uint256 acc;
            uint256 expect;
            for (uint256 i; i < n; ++i) {
                acc += model[i];
                if (acc > r) {
                    expect = i;
                    break;
                }
            }
            assertEq(h.find(r), expect);
        }
    }
}
