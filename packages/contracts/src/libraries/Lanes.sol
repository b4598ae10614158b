// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Lanes
/// @notice A storage word read as four 64-bit lanes, the wide node of the weight trees (`SumTree` levels 5 and up,
///         every `GroupTree` level): their sum, and the lane a weighted pick falls in.
library Lanes {
    uint256 internal constant MASK64 = type(uint64).max;

    /// @notice The sum of the four 64-bit lanes of `w`.
    function sum64(uint256 w) internal pure returns (uint256) {
        unchecked {
            return (w & MASK64) + ((w >> 64) & MASK64) + ((w >> 128) & MASK64) + (w >> 192);
        }
    }

    /// @notice The first lane of `w` whose running sum exceeds `r`, lane `exLane` counting `d` less (exLane >= 4:
    ///         none does), and `r` less the lanes before it; lane 4 when `r` is not below the word's sum.
    function pick64(uint256 w, uint256 r, uint256 exLane, uint256 d) internal pure returns (uint256 lane, uint256 rest) {
        for (; lane < 4;) {
            uint256 v = (w >> (lane << 6)) & MASK64;
            if (lane == exLane) v -= d;
            if (r < v) break;
            unchecked {
                r -= v;
                ++lane;
            }
        }
        rest = r;
    }
}
