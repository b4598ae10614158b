// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {QoS} from "../libraries/QoS.sol";
import {NodeRegistryBase} from "./NodeRegistryBase.sol";

/// @title NodeRegistryProbes
/// @notice System probe tasks (docs/contracts.md, Probes): an active node that had no task scored for probeInterval
///         seconds, or whose QoS score is 0 (weight 0: out of every draw until a probe scores it), is due a probe, a small proof of work it must answer within PROBE_WINDOW blocks; the answer's
///         speed is scored like a verification (so an idle node's score stays fresh, and a node at weight 0 earns its
///         way back), a missed probe scores 0 and pauses the node as a silent verifier is paused. Anyone may call
///         probeNext (every jobmesh peer does, when a simulated call says there is work): it scans a
///         bounded number of nodes round-robin, assigns due probes and closes expired ones, so every active node is
///         probed once per interval as long as someone scans at least (nodes / maxScan) times per interval.
abstract contract NodeRegistryProbes is NodeRegistryBase {
    /// @notice Blocks a node has to answer its probe.
    uint256 public constant PROBE_WINDOW = 20;
    /// @notice Leading zero bits the answer's hash needs (about 4 096 hashes: tens of ms on any machine).
    uint256 public constant PROBE_DIFFICULTY = 12;

    /// @notice Scans up to `maxScan` nodes from the cursor: assigns a probe to each one due (active, idle, no task
    ///         scored for probeInterval or at QoS score 0) and closes each open probe past its window (score 0, paused). O(maxScan)
    ///         reads, O(log N) writes per probe. Returns the probes assigned and closed: a caller simulates the call
    ///         first (eth_call) and sends it only when that is not 0.
    function probeNext(uint256 maxScan) external returns (uint256 work) {
        uint256 len = _probeList.length;
        if (maxScan > len) maxScan = len;
        uint256 c = probeCursor;
        for (uint256 i; i < maxScan; ++i) {
            address a = _probeList[c];
            c = c + 1 == len ? 0 : c + 1;
            Probe storage p = _probes[a];
            if (p.block != 0) {
                if (block.number > uint256(p.block) + PROBE_WINDOW) {
                    _missProbe(a, p);
                    ++work;
                }
            } else if (_probeDue(a, p)) {
                _assignProbe(a, p);
                ++work;
            }
        }
        probeCursor = c;
    }

    /// @notice Answers the caller's open probe with a nonce such that keccak256(abi.encode(challenge, caller, nonce))
    ///         has PROBE_DIFFICULTY leading zero bits. Task score by the blocks it took: <= PROBE_WINDOW / 4: 2000,
    ///         <= PROBE_WINDOW / 2: 1000, else 400 (the round scores of a verifier first, second, later in both rounds).
    function answerProbe(uint256 nonce) external {
        Probe storage p = _probes[msg.sender];
        uint256 from = p.block;
        if (from == 0) revert NoOpenProbe();
        if (block.number > from + PROBE_WINDOW) revert ProbeExpired(from + PROBE_WINDOW);
        if (uint256(keccak256(abi.encode(p.challenge, msg.sender, nonce))) >> (256 - PROBE_DIFFICULTY) != 0) {
            revert BadProbeAnswer();
        }
        uint256 blocks = block.number - from;
        uint256 order = blocks <= PROBE_WINDOW / 4 ? 0 : blocks <= PROBE_WINDOW / 2 ? 1 : 2;
        uint256 taskScore = 2 * QoS.roundScore(order);
        Node storage n = _endProbe(msg.sender, p);
        _recordTask(msg.sender, n, taskScore, 0);
        emit ProbeAnswered(msg.sender, blocks, taskScore);
        _syncNode(n);
        _notifyAvailable(msg.sender);
    }

    /// @notice A node's probe state: its open probe (block 0: none) and when its last task was scored.
    function probeOf(address node) external view returns (bytes32 challenge, uint256 assignedBlock, uint256 lastTask) {
        Probe storage p = _probes[node];
        return (p.challenge, p.block, p.lastTask);
    }

    /// @notice Seconds without a scored task after which an active node is due a probe.
    function probeInterval() external view returns (uint256) {
        return _probeInterval;
    }

    /// @dev Active (a member of selection: registered, not paused, exiting or kicked out), idle, and either no task
    ///      scored for probeInterval or at QoS score 0: W = 0 keeps such a node out of every draw until a probe
    ///      scores it, and on a small network the draws of every job waited for it (a node resumed after one silent
    ///      verification, 4 nodes, k = 3: no draw for a probe interval).
    function _probeDue(address a, Probe storage p) internal view returns (bool) {
        Node storage n = _nodes[a];
        return _eligible(n) && (block.timestamp >= uint256(p.lastTask) + _probeInterval || QoS.score(n.qos) == 0);
    }

    /// @dev The challenge binds the node, the block and the last block hash: unknown before the assignment.
    function _assignProbe(address a, Probe storage p) internal {
        bytes32 ch = keccak256(abi.encode(blockhash(block.number - 1), a, block.number));
        p.challenge = ch;
        p.block = uint40(block.number);
        Node storage n = _nodes[a];
        n.flags |= F_BUSY; // out of the draw while it answers
        _syncNode(n);
        emit ProbeAssigned(a, ch, block.number + PROBE_WINDOW);
    }

    function _missProbe(address a, Probe storage p) internal {
        Node storage n = _endProbe(a, p);
        _recordTask(a, n, 0, 2);
        emit ProbeMissed(a);
        _syncNode(n);
    }

    function _endProbe(address a, Probe storage p) internal returns (Node storage n) {
        p.block = 0;
        p.challenge = bytes32(0);
        n = _nodes[a];
        n.flags &= ~F_BUSY;
    }

    /// @dev A node registering for the first time joins the scan; its idle time starts now.
    function _enrolProbes(address a, bool first) internal {
        if (first) _probeList.push(a);
        _probes[a].lastTask = uint40(block.timestamp);
    }
}
