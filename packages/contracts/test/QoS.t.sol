// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {QoS} from "../src/libraries/QoS.sol";

contract QoSTest is Test {
    function test_roundScores() public pure {
        assertEq(QoS.roundScore(0), 1000);
        assertEq(QoS.roundScore(1), 500);
        assertEq(QoS.roundScore(2), 200);
        assertEq(QoS.roundScore(9), 200);
    }

    function test_initialScore() public pure {
        assertEq(QoS.score(0), 1000);
        assertEq(QoS.count(0), 0);
    }

    function test_windowedMean() public pure {
        uint256 w;
        bool kick;
        (w, kick) = QoS.record(w, 2000, 0);
        (w, kick) = QoS.record(w, 1000, 0);
        assertEq(QoS.score(w), 1500);
        assertEq(QoS.count(w), 2);
        assertFalse(kick);
        for (uint256 i; i < 10; ++i) (w, kick) = QoS.record(w, 700, 1);
        assertEq(QoS.score(w), 700); // older tasks fell out of the window
        assertEq(QoS.count(w), 10);
        assertEq(QoS.timeouts(w), 10);
    }

    function test_clampsTaskScore() public pure {
        (uint256 w,) = QoS.record(0, 5000, 7);
        assertEq(QoS.score(w), 2000);
        assertEq(QoS.timeouts(w), 2);
    }

    function test_kickAfterFullLowWindow() public pure {
        uint256 w;
        bool kick;
        for (uint256 i; i < 9; ++i) {
            (w, kick) = QoS.record(w, 0, 2);
            assertFalse(kick);
        }
        (w, kick) = QoS.record(w, 0, 2);
        assertTrue(kick);
        assertEq(QoS.lowStreak(w), 10);
    }

    function test_noKickAtThreshold() public pure {
        uint256 w;
        bool kick;
        for (uint256 i; i < 10; ++i) (w, kick) = QoS.record(w, 400, 0);
        assertFalse(kick);
        assertEq(QoS.lowStreak(w), 0);
    }

    /// Fuzz: the packed window equals a naive windowed mean over the last 10 scores.
    function testFuzz_matchesNaiveWindow(uint256 seed, uint8 nRec) public pure {
        uint256 n = bound(nRec, 1, 40);
        uint256[] memory hist = new uint256[](n);
        uint256 w;
        bool kick;
        for (uint256 i; i < n; ++i) {
            uint256 s = uint256(keccak256(abi.encode(seed, i))) % 2001;
            hist[i] = s;
            (w, kick) = QoS.record(w, s, 0);
            uint256 from = i + 1 > 10 ? i + 1 - 10 : 0;
            uint256 sum;
            for (uint256 x = from; x <= i; ++x) sum += hist[x];
            uint256 mean = sum / (i + 1 - from);
            assertEq(QoS.score(w), mean);
            assertEq(kick, i + 1 >= 10 && mean < 400);
        }
    }
}
