// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./Test.sol";
import {NodeRegistry} from "../../src/NodeRegistry.sol";
import {UncheckedPeerIdRegistry} from "./UncheckedPeerIdRegistry.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";

/// A registry with an hourly probe interval whose escrow is the test contract (release, slash, onNodeAvailable),
/// nodes registered on it, and the probe answer a node computes off chain.
abstract contract ProbeFixture is Test {
    NodeRegistry reg;
    bytes32 constant GPU = keccak256("cpu");
    uint256 constant INTERVAL = 1 hours;
    uint256 available;

    function onNodeAvailable(address) external {
        ++available;
    }

    receive() external payable {}

    function setUp() public virtual {
        vm.warp(1_700_000_000);
        vm.roll(100);
        reg = new UncheckedPeerIdRegistry(
            NodeRegistryBase.Params({
                minStake: 1 ether, stakeCap: 10 ether, exitCooldown: 1 days, maxDrawAttempts: 64, probeInterval: uint32(INTERVAL)
            })
        );
        reg.setEscrow(address(this));
    }

    function node(uint256 i) internal pure returns (address) {
        return address(uint160(0xB000 + i));
    }

    /// Registers node `i` with `stake` (16 GB, the cpu model).
    function register(uint256 i, uint256 stake) internal returns (address a) {
        a = node(i);
        vm.deal(a, stake + 1 ether);
        vm.prank(a);
        reg.register{value: stake}(string(abi.encodePacked("peer-", bytes32(i))), bytes32(0), "", GPU, 16);
    }

    /// The answer a node computes off chain (as the peer's probe answerer does).
    function solve(address a) internal view returns (uint256 nonce) {
        (bytes32 challenge,,) = reg.probeOf(a);
        while (uint256(keccak256(abi.encode(challenge, a, nonce))) >> (256 - reg.PROBE_DIFFICULTY()) != 0) ++nonce;
    }
}
