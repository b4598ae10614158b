// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title VerificationQueue
/// @notice Jobs waiting for verifiers, grouped by (minVram, gpuModel) ("Any" model = bytes32(0)), ordered by task
///         value. Each group is a max-heap in storage (best task first); all entries are also in one global min-heap
///         so the lowest-value task can be evicted when the queue is full. Push, remove and evict are O(log n).
/// @dev Priority = value << 64 | (2^64 - 1 - seq): higher value first, then earlier insertion first.
library VerificationQueue {
    error QueueDuplicate(bytes32 id);
    error QueueUnknown(bytes32 id);
    error QueueTooManyGroups(bytes32 gpuModel);

    /// @notice Maximum distinct minVram groups per GPU model (bounds the dispatch scan).
    uint256 internal constant MAX_GROUPS_PER_MODEL = 32;

    struct Entry {
        uint256 priority;
        bytes32 group;
        uint32 minHeapPos; // 1-based, 0 = absent
        uint32 groupHeapPos; // 1-based
    }

    struct Group {
        bytes32 gpuModel;
        uint32 minVram;
        uint32 listPos; // 1-based position in modelGroups[gpuModel]
    }

    struct Queue {
        uint64 seq;
        bytes32[] minHeap;
        mapping(bytes32 => Entry) entries;
        mapping(bytes32 => bytes32[]) groupHeap;
        mapping(bytes32 => Group) groups;
        mapping(bytes32 => bytes32[]) modelGroups;
    }

    function groupKey(uint32 minVram, bytes32 gpuModel) internal pure returns (bytes32) {
        return keccak256(abi.encode(minVram, gpuModel));
    }

    function size(Queue storage q) internal view returns (uint256) {
        return q.minHeap.length;
    }

    function contains(Queue storage q, bytes32 id) internal view returns (bool) {
        return q.entries[id].minHeapPos != 0;
    }

    function priorityOf(Queue storage q, bytes32 id) internal view returns (uint256) {
        return q.entries[id].priority;
    }

    function valueOf(uint256 priority) internal pure returns (uint256) {
        return priority >> 64;
    }

    /// @notice The lowest-priority entry (bytes32(0) when empty).
    function lowest(Queue storage q) internal view returns (bytes32) {
        return q.minHeap.length == 0 ? bytes32(0) : q.minHeap[0];
    }

    /// @notice The best entry of a group (bytes32(0) when empty).
    function top(Queue storage q, uint32 minVram, bytes32 gpuModel) internal view returns (bytes32) {
        bytes32[] storage h = q.groupHeap[groupKey(minVram, gpuModel)];
        return h.length == 0 ? bytes32(0) : h[0];
    }

    /// @notice Whether a push into group (minVram, gpuModel) would fit the per-model group limit.
    function canPush(Queue storage q, uint32 minVram, bytes32 gpuModel) internal view returns (bool) {
        return q.groups[groupKey(minVram, gpuModel)].listPos != 0
            || q.modelGroups[gpuModel].length < MAX_GROUPS_PER_MODEL;
    }

    /// @notice Inserts `id` with `value` into group (minVram, gpuModel).
    function push(Queue storage q, bytes32 id, uint256 value, uint32 minVram, bytes32 gpuModel) internal {
        Entry storage e = q.entries[id];
        if (e.minHeapPos != 0) revert QueueDuplicate(id);
        if (value > type(uint192).max) value = type(uint192).max;
        uint64 s = q.seq++;
        uint256 prio = (value << 64) | uint256(type(uint64).max - s);
        bytes32 g = groupKey(minVram, gpuModel);
        Group storage gr = q.groups[g];
        if (gr.listPos == 0) {
            bytes32[] storage list = q.modelGroups[gpuModel];
            if (list.length >= MAX_GROUPS_PER_MODEL) revert QueueTooManyGroups(gpuModel);
            list.push(g);
            gr.gpuModel = gpuModel;
            gr.minVram = minVram;
            gr.listPos = uint32(list.length);
        }
        e.priority = prio;
        e.group = g;
        // global min-heap
        q.minHeap.push(id);
        e.minHeapPos = uint32(q.minHeap.length);
        _up(q, q.minHeap, q.minHeap.length - 1, false);
        // group max-heap
        bytes32[] storage gh = q.groupHeap[g];
        gh.push(id);
        e.groupHeapPos = uint32(gh.length);
        _up(q, gh, gh.length - 1, true);
    }

    /// @notice Removes `id` (must be present).
    function remove(Queue storage q, bytes32 id) internal {
        Entry storage e = q.entries[id];
        if (e.minHeapPos == 0) revert QueueUnknown(id);
        bytes32 g = e.group;
        _removeAt(q, q.minHeap, e.minHeapPos - 1, false);
        bytes32[] storage gh = q.groupHeap[g];
        _removeAt(q, gh, e.groupHeapPos - 1, true);
        if (gh.length == 0) _dropGroup(q, g);
        delete q.entries[id];
    }

    /// @notice Top entries of the groups a node with (gpuModel, vram) may serve: its own model's groups and the "Any"
    ///         groups, each with minVram <= vram. Unused array tail entries are bytes32(0).
    function candidates(Queue storage q, bytes32 gpuModel, uint32 vram) internal view returns (bytes32[] memory out) {
        bytes32[] storage own = q.modelGroups[gpuModel];
        bytes32[] storage any = q.modelGroups[bytes32(0)];
        uint256 n1 = gpuModel == bytes32(0) ? 0 : own.length;
        out = new bytes32[](n1 + any.length);
        uint256 n;
        for (uint256 i; i < n1; ++i) {
            bytes32 g = own[i];
            if (q.groups[g].minVram <= vram) out[n++] = q.groupHeap[g][0];
        }
        for (uint256 i; i < any.length; ++i) {
            bytes32 g = any[i];
            if (q.groups[g].minVram <= vram) out[n++] = q.groupHeap[g][0];
        }
    }

    function _dropGroup(Queue storage q, bytes32 g) private {
        Group storage gr = q.groups[g];
        bytes32[] storage list = q.modelGroups[gr.gpuModel];
        uint256 i = gr.listPos - 1;
        uint256 last = list.length - 1;
        if (i != last) {
            bytes32 moved = list[last];
            list[i] = moved;
            q.groups[moved].listPos = uint32(i + 1);
        }
        list.pop();
        delete q.groups[g];
    }

    // The two heaps share these: `max` picks the group max-heap (higher priority above, positions in groupHeapPos),
    // otherwise the global min-heap (lower priority above, positions in minHeapPos).

    /// @dev Priority `a` belongs above priority `b`.
    function _above(uint256 a, uint256 b, bool max) private pure returns (bool) {
        return max ? a > b : a < b;
    }

    /// @dev Records that `id` sits at index `i` of its heap (1-based in storage).
    function _place(Queue storage q, bytes32 id, uint256 i, bool max) private {
        if (max) q.entries[id].groupHeapPos = uint32(i + 1);
        else q.entries[id].minHeapPos = uint32(i + 1);
    }

    function _removeAt(Queue storage q, bytes32[] storage h, uint256 i, bool max) private {
        uint256 last = h.length - 1;
        if (i == last) {
            h.pop();
            return;
        }
        bytes32 moved = h[last];
        h[i] = moved;
        _place(q, moved, i, max);
        h.pop();
        _up(q, h, i, max);
        Entry storage m = q.entries[moved];
        _down(q, h, (max ? m.groupHeapPos : m.minHeapPos) - 1, max);
    }

    function _up(Queue storage q, bytes32[] storage h, uint256 i, bool max) private {
        bytes32 id = h[i];
        uint256 p = q.entries[id].priority;
        while (i > 0) {
            uint256 parent = (i - 1) / 2;
            bytes32 pid = h[parent];
            if (!_above(p, q.entries[pid].priority, max)) break;
            h[i] = pid;
            _place(q, pid, i, max);
            i = parent;
        }
        h[i] = id;
        _place(q, id, i, max);
    }

    function _down(Queue storage q, bytes32[] storage h, uint256 i, bool max) private {
        uint256 n = h.length;
        bytes32 id = h[i];
        uint256 p = q.entries[id].priority;
        while (true) {
            uint256 c = 2 * i + 1;
            if (c >= n) break;
            uint256 cp = q.entries[h[c]].priority;
            if (c + 1 < n) {
                uint256 cp2 = q.entries[h[c + 1]].priority;
                if (_above(cp2, cp, max)) {
                    c = c + 1;
                    cp = cp2;
                }
            }
            if (!_above(cp, p, max)) break;
            bytes32 cid = h[c];
            h[i] = cid;
            _place(q, cid, i, max);
            i = c;
        }
        h[i] = id;
        _place(q, id, i, max);
    }
}
