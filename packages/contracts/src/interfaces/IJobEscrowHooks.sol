// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Called by NodeRegistry when a node becomes available for verification (registered, resumed, restaked),
///         so the escrow can dispatch the best waiting task of the verification queue to it.
interface IJobEscrowHooks {
    function onNodeAvailable(address node) external;
}
