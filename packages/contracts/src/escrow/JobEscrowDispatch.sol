// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {NodeRegistry} from "../NodeRegistry.sol";
import {VerificationQueue} from "../libraries/VerificationQueue.sol";
import {JobEscrowPayees} from "./JobEscrowPayees.sol";
import {NodeRegistryBase} from "../registry/NodeRegistryBase.sol";

/// @title JobEscrowDispatch
/// @notice Verifier draws and the verification queue: all-or-nothing draws, queueing a task that found too few
///         idle eligible nodes, parking the lowest when the queue is full, and handing a freed node to the best
///         waiting task (docs/contracts.md, "Verification queue").
abstract contract JobEscrowDispatch is JobEscrowPayees {
    using VerificationQueue for VerificationQueue.Queue;

    /// @dev How many times a dispatch looks at the groups' tops, each time past at least one task past its deadline.
    uint256 internal constant DISPATCH_TRIES = 4;

    function _queueMaxSize() internal view returns (uint256) {
        uint256 s = registry.activeNodes() * _params.alphaBps / BPS;
        return s < _params.queueMin ? _params.queueMin : s;
    }

    /// @dev The seed window opens; the commit window follows it and grows with the sample's estimated re-run time
    ///      (capped).
    function _startCommit(bytes32 jobId, Job storage j) internal {
        uint256 rerun = uint256(j.samples) * j.macroJobs * j.secondsPerMicroJob;
        uint256 spb = _params.secondsPerBlock;
        rerun = (rerun + spb - 1) / spb;
        if (rerun > MAX_RERUN_BLOCKS) rerun = MAX_RERUN_BLOCKS;
        uint256 sd = block.number + SEED_WINDOW_BLOCKS;
        j.seedDeadline = uint40(sd);
        uint256 cd = sd + _params.commitWindow + rerun;
        j.commitDeadline = uint40(cd);
        emit VerifiersSelected(jobId, cd, cd + _revealWindow);
    }

    function _releaseUnrevealed(bytes32 jobId, Job storage j) internal returns (address[] memory freed, uint256 n) {
        if (_queue.contains(jobId)) _queue.remove(jobId);
        uint256 a = j.assigned;
        freed = new address[](a);
        for (uint256 i; i < a; ++i) {
            Verifier storage v = _verifiers[jobId][i];
            if (v.revealed) continue;
            if (registry.release(v.node, 0, 0, false, bytes32(0))) freed[n++] = v.node;
        }
    }

    function _enqueue(bytes32 jobId, Job storage j) internal {
        uint256 value = _taskValue(j);
        bytes32 model = j.chosenModel != bytes32(0) ? j.chosenModel : j.gpuModel;
        uint32 vram = j.minVramGb;
        if (!_queue.canPush(vram, model)) {
            _park(jobId, value);
            return;
        }
        if (_queue.size() >= _queueMaxSize()) {
            bytes32 low = _queue.lowest();
            uint256 lowValue = low == bytes32(0) ? 0 : VerificationQueue.valueOf(_queue.priorityOf(low));
            if (low == bytes32(0) || value <= lowValue) {
                _park(jobId, value);
                return;
            }
            _park(low, lowValue);
        }
        _queue.push(jobId, value, vram, model);
        emit VerificationQueued(jobId, uint256(j.k) - j.assigned, value);
    }

    /// @dev Takes a waiting task out of the queue (or does not queue it). It holds no verifier (draws are
    ///      all-or-nothing) and keeps its status and its submitter's bond: the processors' work is not thrown away
    ///      (an eviction used to refund the creator in full and pay no processor); its submitter draws again later,
    ///      and after the deadline the creator may refund it.
    function _park(bytes32 jobId, uint256 value) internal {
        if (_queue.contains(jobId)) _queue.remove(jobId);
        emit VerificationParked(jobId, value);
    }

    /// @dev A node became available: the best waiting task it may serve (own GPU group and "Any" groups with
    ///      minVram <= its VRAM grade, not a task it submitted or verifies) draws all its verifiers again. A task past
    ///      its deadline leaves the queue instead (its creator may refund it; a draw then took the refund away), and
    ///      the groups' next tops are looked at, a few times at most.
    function _dispatch(address node) internal {
        (bytes32 model, uint32 vram) = registry.nodeGrade(node);
        bytes32 best;
        for (uint256 tries; tries < DISPATCH_TRIES && best == bytes32(0); ++tries) {
            if (_queue.size() == 0) return;
            bool expired;
            (best, expired) = _bestFor(node, model, vram);
            if (best == bytes32(0) && !expired) return;
        }
        if (best == bytes32(0)) return;
        Job storage j = _jobs[best];
        _queue.remove(best);
        if (_drawVerifiers(best, j)) return;
        bytes32 qm = j.chosenModel != bytes32(0) ? j.chosenModel : j.gpuModel;
        if (_queue.canPush(j.minVramGb, qm)) _queue.push(best, _taskValue(j), j.minVramGb, qm);
        else _park(best, _taskValue(j));
    }

    /// @dev The best waiting task `node` may serve among the groups' tops (0 when none), and whether a top past its
    ///      deadline was taken out of the queue on the way.
    function _bestFor(address node, bytes32 model, uint32 vram) private returns (bytes32 best, bool expired) {
        bytes32[] memory tops = _queue.candidates(model, vram);
        uint256 bestPrio;
        for (uint256 i; i < tops.length; ++i) {
            bytes32 id = tops[i];
            if (id == bytes32(0)) continue;
            Job storage c = _jobs[id];
            if (block.timestamp > c.deadline) {
                _park(id, _taskValue(c));
                expired = true;
                continue;
            }
            uint256 pr = _queue.priorityOf(id);
            if (best != bytes32(0) && pr <= bestPrio) continue;
            if (c.submitter == node || _isVerifier(id, c.assigned, node)) continue;
            if (c.identical && c.chosenModel != bytes32(0) && c.chosenModel != model) continue;
            best = id;
            bestPrio = pr;
        }
    }

    /// @dev Draws all of the job's missing verifiers or none: a partial draw is released at once, so a waiting job
    ///      holds no node (jobs that each held some of the few idle nodes while waiting for more deadlocked a small
    ///      network: every node busy, no job complete). Returns true when all k are assigned (commit phase started).
    function _drawVerifiers(bytes32 jobId, Job storage j) internal returns (bool) {
        uint256 assigned = j.assigned;
        uint256 need = uint256(j.k) - assigned;
        bool identical = j.identical;
        (address[] memory drawn, uint32 counter, bytes32 chosen) = registry.draw(
            NodeRegistryBase.DrawRequest({
                entropy: j.drawEntropy,
                jobId: jobId,
                counter: j.drawCounter,
                need: uint8(need),
                minVram: j.minVramGb,
                gpuModel: identical && j.chosenModel != bytes32(0) ? j.chosenModel : j.gpuModel,
                modelId: j.modelId,
                identical: identical,
                exclude: j.submitter
            })
        );
        j.drawCounter = counter;
        if (drawn.length < need) {
            for (uint256 i; i < drawn.length; ++i) registry.release(drawn[i], 0, 0, false, bytes32(0));
            return false;
        }
        if (identical && chosen != bytes32(0) && j.chosenModel == bytes32(0)) j.chosenModel = chosen;
        for (uint256 i; i < need; ++i) {
            _verifiers[jobId][assigned] = _newVerifier(drawn[i]);
            emit VerifierAssigned(jobId, drawn[i], assigned);
            ++assigned;
        }
        j.assigned = uint8(assigned);
        _startCommit(jobId, j);
        return true;
    }
}
