// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title SumTree
/// @notice A growable 4-ary sum tree in storage for O(log4 N) weighted draws and weight updates.
/// @dev Each storage word holds four 64-bit lanes. Level 0 word `j` holds the weights of leaves 4j..4j+3;
///      level l word `j` holds the sums of the level-(l-1) words 4j..4j+3. The single word at the top level holds
///      the four sums of the whole tree. A leaf update writes one word per level; a draw reads one word per level.
///      Capacity grows by adding a level on top (the old top becomes lane 0 of the new top), never by rebuilding.
///      Leaf weights must fit 64 bits and the total must stay below 2^64 (node weights are <= 5e5, see NodeRegistry).
library SumTree {
    error SumTreeWeightTooLarge();
    error SumTreeOutOfRange();
    error SumTreeEmpty();

    uint256 private constant LANE = 64;
    uint256 private constant MASK = type(uint64).max;

    struct Tree {
        uint32 size; // leaves allocated (slots 0..size-1)
        uint8 levels; // number of levels; capacity = 4**levels
        uint64 held; // part of the total set aside by the owner (e.g. weight of busy leaves); see free()
        mapping(uint256 => uint256) words; // key = (level << 32) | index
    }

    /// @notice Appends a leaf with `weight`; returns its slot.
    function push(Tree storage t, uint256 weight) internal returns (uint256 slot) {
        slot = t.size;
        uint256 levels = t.levels;
        if (levels == 0 || slot >= (uint256(1) << (2 * levels))) {
            // grow: new top word whose lane 0 is the old top's total
            uint256 oldTotal = levels == 0 ? 0 : _sumWord(t.words[(levels - 1) << 32]);
            t.words[levels << 32] = oldTotal;
            unchecked {
                ++levels;
            }
            t.levels = uint8(levels);
        }
        t.size = uint32(slot + 1);
        if (weight != 0) _add(t, slot, weight, false, levels);
    }

    /// @notice Sets the weight of `slot` (must exist).
    function update(Tree storage t, uint256 slot, uint256 weight) internal {
        if (slot >= t.size) revert SumTreeOutOfRange();
        if (weight > MASK) revert SumTreeWeightTooLarge();
        uint256 old = get(t, slot);
        if (weight == old) return;
        if (weight > old) _add(t, slot, weight - old, false, t.levels);
        else _add(t, slot, old - weight, true, t.levels);
    }

    function _add(Tree storage t, uint256 slot, uint256 delta, bool sub, uint256 levels) private {
        if (delta > MASK) revert SumTreeWeightTooLarge();
        for (uint256 l; l < levels; ) {
            uint256 idx = slot >> (2 * (l + 1));
            uint256 shift = ((slot >> (2 * l)) & 3) * LANE;
            uint256 key = (l << 32) | idx;
            uint256 w = t.words[key];
            uint256 lane = (w >> shift) & MASK;
            uint256 nl;
            if (sub) {
                nl = lane - delta; // checked: underflow impossible if invariants hold
            } else {
                nl = lane + delta;
                if (nl > MASK) revert SumTreeWeightTooLarge();
            }
            t.words[key] = (w & ~(MASK << shift)) | (nl << shift);
            unchecked {
                ++l;
            }
        }
    }

    /// @notice The weight of `slot`.
    function get(Tree storage t, uint256 slot) internal view returns (uint256) {
        if (slot >= t.size) return 0;
        return (t.words[slot >> 2] >> ((slot & 3) * LANE)) & MASK;
    }

    /// @notice Sum of all weights.
    function total(Tree storage t) internal view returns (uint256) {
        uint256 levels = t.levels;
        if (levels == 0) return 0;
        return _sumWord(t.words[(levels - 1) << 32]);
    }

    /// @notice The total minus the held weight.
    function free(Tree storage t) internal view returns (uint256) {
        return total(t) - t.held;
    }

    /// @notice Sets `w` of the total aside (held stays in the header word, next to size and levels, so it is warm
    ///         whenever the tree is read and never a zero-to-nonzero write once the tree has a leaf).
    function hold(Tree storage t, uint256 w) internal {
        uint256 h = uint256(t.held) + w;
        if (h > MASK) revert SumTreeWeightTooLarge();
        t.held = uint64(h);
    }

    function unhold(Tree storage t, uint256 w) internal {
        t.held = uint64(uint256(t.held) - w); // checked: underflow impossible if the owner holds what it unholds
    }

    /// @notice The slot whose prefix sum is the first to exceed `r` (r < total()).
    function find(Tree storage t, uint256 r) internal view returns (uint256 slot) {
        uint256 levels = t.levels;
        if (levels == 0) revert SumTreeEmpty();
        uint256 idx;
        for (uint256 l = levels; l > 0; ) {
            unchecked {
                --l;
            }
            uint256 w = t.words[(l << 32) | idx];
            uint256 lane;
            for (; lane < 4; ) {
                uint256 v = (w >> (lane * LANE)) & MASK;
                if (r < v) break;
                unchecked {
                    r -= v;
                    ++lane;
                }
            }
            if (lane == 4) revert SumTreeOutOfRange();
            idx = idx * 4 + lane;
        }
        slot = idx;
    }

    function _sumWord(uint256 w) private pure returns (uint256) {
        unchecked {
            return (w & MASK) + ((w >> 64) & MASK) + ((w >> 128) & MASK) + (w >> 192);
        }
    }
}
