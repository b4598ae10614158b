// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {NodeRegistry} from "../../src/NodeRegistry.sol";

/// @notice NodeRegistry without the PeerId proof, for tests that register many nodes (up to 100 000) and are about
///         selection, stake and settlement, not about the PeerId binding. The proof itself (~0.45M gas a registration)
///         is tested on the real NodeRegistry in PeerIdProof.t.sol and attacks/PeerIdSquat.t.sol.
contract UncheckedPeerIdRegistry is NodeRegistry {
    constructor(Params memory p) NodeRegistry(p) {}

    function _checkPeerIdProof(string calldata, bytes32, bytes calldata) internal pure override {}
}
