// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./Test.sol";
import {NodeRegistry} from "../../src/NodeRegistry.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";
import {Ed25519Vectors} from "../vectors/Ed25519Vectors.sol";

/// @notice A real NodeRegistry (with the PeerId proof) at the address the binding vectors were signed for.
abstract contract PeerIdFixture is Test {
    NodeRegistry internal reg;
    bytes32 internal constant GPU = keccak256("RTX4090");

    function deployRegistry() internal {
        reg = new NodeRegistry(
            NodeRegistryBase.Params({minStake: 1 ether, stakeCap: 10 ether, exitCooldown: 1 days, maxDrawAttempts: 64, probeInterval: 1 days})
        );
        // the vectors sign peerBindingMessage for this address: the test contract's first creation
        assertEq(address(reg), Ed25519Vectors.REGISTRY);
        assertEq(block.chainid, Ed25519Vectors.CHAIN_ID);
    }

    function binding(uint256 i) internal pure returns (Ed25519Vectors.Binding memory) {
        return Ed25519Vectors.bindings()[i];
    }

    /// @dev `from` registers `b`'s PeerId, key and signature with 2 ether of stake.
    function registerAs(address from, Ed25519Vectors.Binding memory b) internal {
        vm.deal(from, 2 ether);
        vm.prank(from);
        reg.register{value: 2 ether}(b.peerId, b.publicKey, b.signature, GPU, 24);
    }

    function expectRegisterRevert(address from, Ed25519Vectors.Binding memory b, bytes4 err) internal {
        vm.deal(from, 2 ether);
        vm.expectRevert(err);
        vm.prank(from);
        reg.register{value: 2 ether}(b.peerId, b.publicKey, b.signature, GPU, 24);
    }
}
