// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Lanes} from "./Lanes.sol";

/// @title SumTree
/// @notice A growable sum tree in storage for O(log N) weighted draws and weight updates, packed to keep the number
///         of levels (storage words read per draw, written per update) small.
/// @dev Levels 0..4 are 8-ary with eight 32-bit lanes per word; levels 5 and up are 4-ary with four 64-bit lanes.
///      Leaf weights are at most MAX_LEAF = 2^19 - 1, so a level-4 lane (the sum of 8^4 = 4 096 leaves) stays below
///      2^31 and 32 bits suffice up to there; 64-bit lanes above hold any realistic total.
///      Level l word j holds the sums of the subtrees below it; the word index of leaf `slot` at level l is
///      slot >> sb(l+1) and its lane (slot >> sb(l)) & (lanes(l) - 1), with sb(l) = 3l for l <= 5, 2l + 5 above
///      (a lane at level l spans 2^sb(l) leaves). Capacity: 8^levels up to 5 levels (32 768 leaves), then x4 per level
///      (6 levels: 131 072, 7: 524 288). The single word at the top level holds the sums of the whole tree.
///      A leaf update writes one word per level; a draw reads one word per level. Capacity grows by adding a level on
///      top (the old top's total becomes lane 0 of the new top), never by rebuilding.
///      `held` is a part of the total the owner sets aside (NodeRegistry: the weight of busy nodes, which stay in the
///      tree); it lives in the header word with size and levels, so it is warm whenever the tree is read.
library SumTree {
    error SumTreeWeightTooLarge();
    error SumTreeOutOfRange();
    error SumTreeEmpty();

    /// @notice Largest leaf weight (NodeRegistry weights are <= 5e5; group member counts are far smaller).
    uint256 internal constant MAX_LEAF = (1 << 19) - 1;
    uint256 private constant NARROW_LEVELS = 5; // levels 0..4: 8 x 32-bit lanes
    uint256 private constant MASK32 = type(uint32).max;
    uint256 private constant MASK64 = type(uint64).max;

    struct Tree {
        uint32 size; // leaves allocated (slots 0..size-1)
        uint8 levels; // number of levels
        uint64 held; // part of the total set aside by the owner; see free()
        mapping(uint256 => uint256) words; // key = (level << 32) | index
    }

    /// @notice Appends a leaf with `weight`; returns its slot.
    function push(Tree storage t, uint256 weight) internal returns (uint256 slot) {
        slot = t.size;
        uint256 levels = t.levels;
        if (levels == 0 || slot >> _sb(levels) != 0) {
            // grow: new top word whose lane 0 is the old top's total
            t.words[levels << 32] = levels == 0 ? 0 : _sumWord(t.words[(levels - 1) << 32], levels - 1);
            unchecked {
                ++levels;
            }
            t.levels = uint8(levels);
        }
        t.size = uint32(slot + 1);
        if (weight != 0) {
            if (weight > MAX_LEAF) revert SumTreeWeightTooLarge();
            _add(t, slot, weight, false, levels);
        }
    }

    /// @notice Sets the weight of `slot` (must exist).
    function update(Tree storage t, uint256 slot, uint256 weight) internal {
        if (slot >= t.size) revert SumTreeOutOfRange();
        if (weight > MAX_LEAF) revert SumTreeWeightTooLarge();
        uint256 old = get(t, slot);
        if (weight == old) return;
        if (weight > old) _add(t, slot, weight - old, false, t.levels);
        else _add(t, slot, old - weight, true, t.levels);
    }

    function _add(Tree storage t, uint256 slot, uint256 delta, bool sub, uint256 levels) private {
        for (uint256 l; l < levels; ) {
            uint256 key = (l << 32) | (slot >> _sb(l + 1));
            uint256 w = t.words[key];
            uint256 mask;
            uint256 shift;
            if (l < NARROW_LEVELS) {
                mask = MASK32;
                shift = ((slot >> (3 * l)) & 7) << 5;
            } else {
                mask = MASK64;
                shift = ((slot >> (2 * l + 5)) & 3) << 6;
            }
            uint256 lane = (w >> shift) & mask;
            uint256 nl;
            if (sub) {
                nl = lane - delta; // checked: underflow impossible if invariants hold
            } else {
                nl = lane + delta;
                if (nl > mask) revert SumTreeWeightTooLarge();
            }
            t.words[key] = (w & ~(mask << shift)) | (nl << shift);
            unchecked {
                ++l;
            }
        }
    }

    /// @notice The weight of `slot`.
    function get(Tree storage t, uint256 slot) internal view returns (uint256) {
        if (slot >= t.size) return 0;
        return (t.words[slot >> 3] >> ((slot & 7) << 5)) & MASK32;
    }

    /// @notice The weight of `slot`, which the caller knows to exist (no read of the header).
    function leaf(Tree storage t, uint256 slot) internal view returns (uint256) {
        return (t.words[slot >> 3] >> ((slot & 7) << 5)) & MASK32;
    }

    /// @notice Sum of all weights.
    function total(Tree storage t) internal view returns (uint256) {
        uint256 levels = t.levels;
        if (levels == 0) return 0;
        return _sumWord(t.words[(levels - 1) << 32], levels - 1);
    }

    /// @notice The total minus the held weight.
    function free(Tree storage t) internal view returns (uint256) {
        return total(t) - t.held;
    }

    /// @notice Sets `w` of the total aside.
    function hold(Tree storage t, uint256 w) internal {
        uint256 h = uint256(t.held) + w;
        if (h > MASK64) revert SumTreeWeightTooLarge();
        t.held = uint64(h);
    }

    /// @notice Gives back `w` of the held weight.
    function unhold(Tree storage t, uint256 w) internal {
        t.held = uint64(uint256(t.held) - w); // checked: the owner only gives back what it held
    }

    /// @notice The slot whose prefix sum is the first to exceed `r` (r < total()).
    function find(Tree storage t, uint256 r) internal view returns (uint256 slot) {
        return findExcluding(t, r, 0, 0);
    }

    /// @notice find() as if the weight of slot `ex` were `d` less (r < total() - d), in one pass: on the path to
    ///         `ex`, the lane holding it counts d less. With d = ex's weight, `ex` is never returned.
    function findExcluding(Tree storage t, uint256 r, uint256 ex, uint256 d) internal view returns (uint256 slot) {
        uint256 levels = t.levels;
        if (levels == 0) revert SumTreeEmpty();
        uint256 idx;
        for (uint256 l = levels; l > 0; ) {
            unchecked {
                --l;
            }
            uint256 w = t.words[(l << 32) | idx];
            uint256 lane;
            // the lane on the path to ex (none when d == 0 or off the path)
            uint256 exLane = d != 0 && idx == ex >> _sb(l + 1) ? (ex >> _sb(l)) & (l < NARROW_LEVELS ? 7 : 3) : 8;
            if (l < NARROW_LEVELS) {
                for (; lane < 8; ) {
                    uint256 v = (w >> (lane << 5)) & MASK32;
                    if (lane == exLane) v -= d;
                    if (r < v) break;
                    unchecked {
                        r -= v;
                        ++lane;
                    }
                }
                if (lane == 8) revert SumTreeOutOfRange();
                idx = (idx << 3) | lane;
            } else {
                (lane, r) = Lanes.pick64(w, r, exLane, d);
                if (lane == 4) revert SumTreeOutOfRange();
                idx = (idx << 2) | lane;
            }
        }
        slot = idx;
    }

    /// @dev sb(l): log2 of the number of leaves a lane at level l spans.
    function _sb(uint256 l) private pure returns (uint256) {
        return l <= NARROW_LEVELS ? 3 * l : 2 * l + 5;
    }

    function _sumWord(uint256 w, uint256 level) private pure returns (uint256 s) {
        unchecked {
            if (level < NARROW_LEVELS) {
                for (uint256 i; i < 8; ++i) s += (w >> (i << 5)) & MASK32;
            } else {
                s = Lanes.sum64(w);
            }
        }
    }
}
