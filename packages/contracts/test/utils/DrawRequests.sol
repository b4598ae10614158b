// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";

/// @notice A draw request as the escrow makes it (counter 0), for the registry tests that play the escrow.
function drawRequest(
    bytes32 entropy,
    bytes32 jobId,
    uint8 need,
    uint32 minVram,
    bytes32 gpu,
    bytes32 modelId,
    bool identical,
    address excl
) pure returns (NodeRegistryBase.DrawRequest memory) {
    return NodeRegistryBase.DrawRequest({
        entropy: entropy,
        jobId: jobId,
        counter: 0,
        need: need,
        minVram: minVram,
        gpuModel: gpu,
        modelId: modelId,
        identical: identical,
        exclude: excl
    });
}
