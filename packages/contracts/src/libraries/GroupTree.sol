// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Lanes} from "./Lanes.sol";

/// @title GroupTree
/// @notice A 4-ary sum tree in storage with 64-bit leaves, for weights that are themselves sums (the free weight of a
///         node group). NodeRegistry keeps one per VRAM tier, leaf g-1 = the free weight of GPU-model group g in that
///         tier, to draw a model within a tier in O(log4 G) reads (G = number of GPU models).
/// @dev The caller keeps the number of levels (NodeRegistry packs those of all tiers in one word) and passes the
///      words mapping. Level l word j holds four 64-bit lanes; leaf `slot` is at level 0 word slot >> 2, lane
///      slot & 3; at level l its word is slot >> 2(l+1) and its lane (slot >> 2l) & 3. Capacity 4^levels; `add` grows
///      the tree by a new top level (whose lane 0 is the old top's total) when a leaf beyond the capacity is touched,
///      and returns the new number of levels.
library GroupTree {
    error GroupTreeOverflow();
    error GroupTreeOutOfRange();

    uint256 private constant MASK64 = type(uint64).max;

    /// @notice Adds `delta` to leaf `slot` (subtracts it when `sub`); returns the number of levels after.
    function add(mapping(uint256 => uint256) storage words, uint256 levels, uint256 slot, uint256 delta, bool sub)
        internal
        returns (uint256)
    {
        if (delta == 0) return levels;
        while (levels == 0 || slot >> (2 * levels) != 0) {
            if (sub) revert GroupTreeOutOfRange();
            if (levels != 0) words[levels << 32] = Lanes.sum64(words[(levels - 1) << 32]);
            ++levels;
        }
        for (uint256 l; l < levels;) {
            uint256 key = (l << 32) | (slot >> (2 * l + 2));
            uint256 w = words[key];
            uint256 shift = ((slot >> (2 * l)) & 3) << 6;
            uint256 lane = (w >> shift) & MASK64;
            uint256 nl;
            if (sub) {
                nl = lane - delta; // checked: the owner only takes out what it put in
            } else {
                nl = lane + delta;
                if (nl > MASK64) revert GroupTreeOverflow();
            }
            words[key] = (w & ~(MASK64 << shift)) | (nl << shift);
            unchecked {
                ++l;
            }
        }
        return levels;
    }

    /// @notice The weight of leaf `slot` (0 beyond the capacity: its word was never written).
    function get(mapping(uint256 => uint256) storage words, uint256 slot) internal view returns (uint256) {
        return (words[slot >> 2] >> ((slot & 3) << 6)) & MASK64;
    }

    /// @notice Sum of all leaves.
    function total(mapping(uint256 => uint256) storage words, uint256 levels) internal view returns (uint256) {
        return levels == 0 ? 0 : Lanes.sum64(words[(levels - 1) << 32]);
    }

    /// @notice The leaf whose prefix sum is the first to exceed `r` (r < total()), as if leaf `ex` weighed `d`
    ///         less (r < total() - d; d = 0: plain find), in one pass: on the path to `ex`, its lane counts d less.
    function find(mapping(uint256 => uint256) storage words, uint256 levels, uint256 r, uint256 ex, uint256 d)
        internal
        view
        returns (uint256 idx)
    {
        if (levels == 0) revert GroupTreeOutOfRange();
        for (uint256 l = levels; l > 0;) {
            unchecked {
                --l;
            }
            uint256 w = words[(l << 32) | idx];
            uint256 exLane = d != 0 && idx == ex >> (2 * l + 2) ? (ex >> (2 * l)) & 3 : 4;
            (uint256 lane, uint256 rest) = Lanes.pick64(w, r, exLane, d);
            r = rest;
            if (lane == 4) revert GroupTreeOutOfRange();
            idx = (idx << 2) | lane;
        }
    }
}
