// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {NodeRegistryBase} from "./NodeRegistryBase.sol";
import {QoS} from "../libraries/QoS.sol";

/// @title NodeRegistryTimeout
/// @notice Each node's timeout setting, the spec's O (docs/contracts.md, Timeout setting): the share of a verification
///         round's commit window within which the node promises to commit, TIMEOUT_MIN_PCT..TIMEOUT_MAX_PCT percent.
///         A shorter timeout needs more stake (minStake * 100 / pct) and earns a better timeout score
///         P = (maxO - O) / (maxO - Omin); a commit after the node's own timeout still counts for the verification
///         but scores 0 for its commit round and counts as a timed-out round (the escrow checks it).
abstract contract NodeRegistryTimeout is NodeRegistryBase {
    uint256 public constant TIMEOUT_MIN_PCT = QoS.TIMEOUT_MIN_PCT;
    uint256 public constant TIMEOUT_MAX_PCT = QoS.TIMEOUT_MAX_PCT;

    /// @notice Sets the caller's timeout to `pct` percent of a commit window; its stake must cover it. Not while the
    ///         node is busy (a drawn verifier, or an open probe): the escrow reads the setting when the verifier
    ///         commits, so a setting changed during a task would let a late verifier drop its promise just for that
    ///         commit (`NodeIsBusy`).
    function setTimeout(uint256 pct) external {
        Node storage n = _requireRegistered(msg.sender);
        if (n.flags & F_BUSY != 0) revert NodeIsBusy();
        if (pct < TIMEOUT_MIN_PCT || pct > TIMEOUT_MAX_PCT) revert InvalidTimeout(pct);
        uint256 needed = timeoutStake(pct);
        if (n.stake < needed) revert InsufficientStake(n.stake, needed);
        n.timeoutPct = uint8(pct);
        emit TimeoutSet(msg.sender, pct);
    }

    /// @notice The stake a timeout of `pct` percent needs: minStake * 100 / pct, rounded up.
    function timeoutStake(uint256 pct) public view returns (uint256) {
        return (uint256(_minStake) * TIMEOUT_MAX_PCT + pct - 1) / pct;
    }

    /// @notice The node's timeout in force, in percent: its setting (100 when never set), relaxed to what its stake
    ///         still covers when the stake fell below the setting's requirement (a slash).
    function timeoutOf(address node) public view returns (uint256 pct) {
        Node storage n = _nodes[node];
        pct = n.timeoutPct == 0 ? TIMEOUT_MAX_PCT : n.timeoutPct;
        uint256 stake = n.stake;
        if (stake == 0) return TIMEOUT_MAX_PCT;
        uint256 covered = (uint256(_minStake) * TIMEOUT_MAX_PCT + stake - 1) / stake;
        if (covered > pct) pct = covered > TIMEOUT_MAX_PCT ? TIMEOUT_MAX_PCT : covered;
    }

    /// @notice Timeout score P = (maxO - O) / (maxO - Omin), scaled by SCALE, O = timeoutOf(node).
    function timeoutScore(address node) external view returns (uint256) {
        return (TIMEOUT_MAX_PCT - timeoutOf(node)) * SCALE / (TIMEOUT_MAX_PCT - TIMEOUT_MIN_PCT);
    }
}
