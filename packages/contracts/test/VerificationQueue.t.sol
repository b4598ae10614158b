// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {VerificationQueue} from "../src/libraries/VerificationQueue.sol";

contract QueueHarness {
    using VerificationQueue for VerificationQueue.Queue;

    VerificationQueue.Queue internal q;

    function push(bytes32 id, uint256 value, uint32 vram, bytes32 model) external {
        q.push(id, value, vram, model);
    }

    function remove(bytes32 id) external {
        q.remove(id);
    }

    function size() external view returns (uint256) {
        return q.size();
    }

    function lowest() external view returns (bytes32) {
        return q.lowest();
    }

    function top(uint32 vram, bytes32 model) external view returns (bytes32) {
        return q.top(vram, model);
    }

    function contains(bytes32 id) external view returns (bool) {
        return q.contains(id);
    }

    function valueOf(bytes32 id) external view returns (uint256) {
        return VerificationQueue.valueOf(q.priorityOf(id));
    }

    function candidates(bytes32 model, uint32 vram) external view returns (bytes32[] memory) {
        return q.candidates(model, vram);
    }

    function canPush(uint32 vram, bytes32 model) external view returns (bool) {
        return q.canPush(vram, model);
    }
}

contract VerificationQueueTest is Test {
    QueueHarness h;
    bytes32 constant M = keccak256("RTX4090");

    function setUp() public {
        h = new QueueHarness();
    }

    function id(uint256 i) internal pure returns (bytes32) {
        return bytes32(i + 1);
    }

    function test_pushTopLowest() public {
        h.push(id(1), 50, 8, bytes32(0));
        h.push(id(2), 70, 8, bytes32(0));
        h.push(id(3), 10, 8, bytes32(0));
        h.push(id(4), 90, 16, M);
        assertEq(h.size(), 4);
        assertEq(h.top(8, bytes32(0)), id(2));
        assertEq(h.top(16, M), id(4));
        assertEq(h.lowest(), id(3));
    }

    function test_tieBreakEarlierFirst() public {
        h.push(id(1), 50, 8, bytes32(0));
        h.push(id(2), 50, 8, bytes32(0));
        assertEq(h.top(8, bytes32(0)), id(1));
        assertEq(h.lowest(), id(2)); // the newest of equal value is evicted first
    }

    function test_removeAndGroupDrop() public {
        h.push(id(1), 50, 8, M);
        h.remove(id(1));
        assertEq(h.size(), 0);
        assertEq(h.top(8, M), bytes32(0));
        assertFalse(h.contains(id(1)));
        assertEq(h.candidates(M, 80).length, 0);
    }

    function test_duplicateReverts() public {
        h.push(id(1), 50, 8, M);
        vm.expectRevert(abi.encodeWithSelector(VerificationQueue.QueueDuplicate.selector, id(1)));
        h.push(id(1), 60, 8, M);
    }

    function test_unknownRemoveReverts() public {
        vm.expectRevert(abi.encodeWithSelector(VerificationQueue.QueueUnknown.selector, id(9)));
        h.remove(id(9));
    }

    function test_candidatesFilterVramAndModel() public {
        h.push(id(1), 50, 8, bytes32(0));
        h.push(id(2), 60, 24, bytes32(0));
        h.push(id(3), 70, 16, M);
        h.push(id(4), 80, 8, keccak256("other"));
        bytes32[] memory c = h.candidates(M, 16);
        // own group (16, M) and Any group (8); not (24, Any), not the other model
        uint256 n;
        bool has1;
        bool has3;
        for (uint256 i; i < c.length; ++i) {
            if (c[i] != bytes32(0)) ++n;
            if (c[i] == id(1)) has1 = true;
            if (c[i] == id(3)) has3 = true;
        }
        assertEq(n, 2);
        assertTrue(has1 && has3);
    }

    function test_tooManyGroupsReverts() public {
        for (uint32 v; v < 32; ++v) h.push(id(v), 1, v, M);
        assertFalse(h.canPush(99, M));
        assertTrue(h.canPush(3, M));
        vm.expectRevert(abi.encodeWithSelector(VerificationQueue.QueueTooManyGroups.selector, M));
        h.push(id(100), 1, 99, M);
    }

    /// Fuzz: repeatedly taking the group top yields non-increasing values; the global lowest is the minimum;
    /// random removals keep both heaps consistent.
    function testFuzz_ordering(uint256 seed, uint8 count) public {
        uint256 n = bound(count, 1, 60);
        bool[] memory gone = new bool[](n);
        for (uint256 i; i < n; ++i) {
            uint256 v = uint256(keccak256(abi.encode(seed, i))) % 100;
            h.push(id(i), v, uint32(8 * (1 + (i % 2))), bytes32(0));
        }
        // random removals
        for (uint256 i; i < n / 3; ++i) {
            uint256 x = uint256(keccak256(abi.encode(seed, "rm", i))) % n;
            if (gone[x]) continue;
            gone[x] = true;
            h.remove(id(x));
        }
        // global min check
        if (h.size() != 0) {
            uint256 minV = type(uint256).max;
            for (uint256 i; i < n; ++i) if (!gone[i] && h.valueOf(id(i)) < minV) minV = h.valueOf(id(i));
            assertEq(h.valueOf(h.lowest()), minV);
        }
        // drain each group by top: non-increasing
        for (uint32 g = 8; g <= 16; g += 8) {
            uint256 last = type(uint256).max;
            while (true) {
                bytes32 t = h.top(g, bytes32(0));
                if (t == bytes32(0)) break;
                uint256 v = h.valueOf(t);
                assertLe(v, last, "group top not monotone");
                last = v;
                h.remove(t);
            }
        }
        assertEq(h.size(), 0);
    }
}
