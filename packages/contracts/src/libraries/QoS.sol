// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title QoS
/// @notice Quality-of-service bookkeeping packed in one storage word per node.
/// @dev Scores are in hundredths: a round score is 1000 / 500 / 200 by submission order (10 / 5 / 2 points), 0 on a
///      timeout; a task score is commit round + reveal round (max 2000). The node score is the mean of the last
///      WINDOW task scores; a node without history scores INITIAL_SCORE. A node is kicked out when it has a full window
///      of WINDOW tasks and its windowed score is under KICK_THRESHOLD (as the TypeScript core's shouldKickOut). The
///      low-score streak (consecutive recordings with a mean under the threshold) is kept for information.
///      Layout of the word: bits 0..159 ten uint16 task scores (ring); 160..179 ten 2-bit timeout counts;
///      180..183 count; 184..187 next ring index; 188..195 low-score streak; 196..211 sum of the ring.
library QoS {
    uint256 internal constant WINDOW = 10;
    uint256 internal constant MAX_ROUND_SCORE = 1000;
    uint256 internal constant MAX_TASK_SCORE = 2000;
    uint256 internal constant INITIAL_SCORE = 1000;
    uint256 internal constant KICK_THRESHOLD = 400;

    /// @notice Bounds of a node's timeout setting, in percent of a commit window (NodeRegistryTimeout).
    uint256 internal constant TIMEOUT_MIN_PCT = 25;
    uint256 internal constant TIMEOUT_MAX_PCT = 100;

    /// @notice Flag in a verifier's commit order: it committed after its own timeout setting (NodeRegistryTimeout).
    uint8 internal constant LATE_COMMIT = 0x80;

    /// @notice Commit-round score of a verifier's commit order: 0 when it was late, else by its position.
    function commitScore(uint8 commitOrder) internal pure returns (uint256) {
        return commitOrder & LATE_COMMIT != 0 ? 0 : roundScore(commitOrder);
    }

    /// @notice 1 when the commit was late (a timed-out round), else 0.
    function lateRounds(uint8 commitOrder) internal pure returns (uint256) {
        return commitOrder & LATE_COMMIT != 0 ? 1 : 0;
    }

    /// @notice Round score (hundredths) for a submission at 0-based position `order`.
    function roundScore(uint256 order) internal pure returns (uint256) {
        if (order == 0) return 1000;
        if (order == 1) return 500;
        return 200;
    }

    function count(uint256 w) internal pure returns (uint256) {
        return (w >> 180) & 0xF;
    }

    function lowStreak(uint256 w) internal pure returns (uint256) {
        return (w >> 188) & 0xFF;
    }

    function sum(uint256 w) internal pure returns (uint256) {
        return (w >> 196) & 0xFFFF;
    }

    /// @notice Windowed mean task score (hundredths); INITIAL_SCORE without history.
    function score(uint256 w) internal pure returns (uint256) {
        uint256 c = count(w);
        if (c == 0) return INITIAL_SCORE;
        return sum(w) / c;
    }

    /// @notice Task score at ring position `i`.
    function taskAt(uint256 w, uint256 i) internal pure returns (uint256) {
        return (w >> (16 * i)) & 0xFFFF;
    }

    /// @notice Number of timed-out rounds (0..2*WINDOW) in the window.
    function timeouts(uint256 w) internal pure returns (uint256 t) {
        uint256 c = count(w);
        for (uint256 i; i < c; ++i) t += (w >> (160 + 2 * i)) & 3;
    }

    /// @notice Records a task score (<= 2000) with `to` timed-out rounds (0..2). Returns the new word and whether the
    ///         node is now to be kicked out.
    function record(uint256 w, uint256 taskScore, uint256 to) internal pure returns (uint256 nw, bool kick) {
        if (taskScore > MAX_TASK_SCORE) taskScore = MAX_TASK_SCORE;
        if (to > 2) to = 2;
        uint256 c = count(w);
        uint256 idx = (w >> 184) & 0xF;
        uint256 s = sum(w);
        if (c == WINDOW) {
            s -= taskAt(w, idx);
        } else {
            c += 1;
        }
        s += taskScore;
        nw = w;
        nw = (nw & ~(uint256(0xFFFF) << (16 * idx))) | (taskScore << (16 * idx));
        nw = (nw & ~(uint256(3) << (160 + 2 * idx))) | (to << (160 + 2 * idx));
        idx = idx + 1 == WINDOW ? 0 : idx + 1;
        uint256 streak = lowStreak(w);
        if (s / c < KICK_THRESHOLD) {
            if (streak < 255) streak += 1;
        } else {
            streak = 0;
        }
        kick = c == WINDOW && s / c < KICK_THRESHOLD;
        nw = (nw & ~(uint256(0xF) << 180)) | (c << 180);
        nw = (nw & ~(uint256(0xF) << 184)) | (idx << 184);
        nw = (nw & ~(uint256(0xFF) << 188)) | (streak << 188);
        nw = (nw & ~(uint256(0xFFFF) << 196)) | (s << 196);
    }
}
