// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./Test.sol";
import {NodeRegistry} from "../../src/NodeRegistry.sol";
import {UncheckedPeerIdRegistry} from "./UncheckedPeerIdRegistry.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";

/// @notice A NodeRegistry (PeerId proof unchecked) whose escrow is the test contract itself: it makes the escrow's
///         calls, counts the onNodeAvailable callbacks and receives slashed stake.
abstract contract NodeRegistryFixture is Test {
    NodeRegistry internal reg;
    bytes32 internal constant GPU_A = keccak256("RTX4090");
    bytes32 internal constant GPU_B = keccak256("A100");
    bytes32 internal constant MODEL_X = keccak256("llama");
    uint256 internal availableCalls;
    address internal lastAvailable;

    function onNodeAvailable(address n) external {
        ++availableCalls;
        lastAvailable = n;
    }

    receive() external payable {}

    function setUp() public {
        vm.warp(1_700_000_000);
        reg = new UncheckedPeerIdRegistry(
            NodeRegistryBase.Params({
                minStake: 1 ether, stakeCap: 10 ether, exitCooldown: 1 days, maxDrawAttempts: 64, probeInterval: 1 days
            })
        );
        reg.setEscrow(address(this));
    }

    function node(uint256 i) internal pure returns (address) {
        return address(uint160(0xA000 + i));
    }

    function reg1(uint256 i, bytes32 gpu, uint32 vram, uint256 stake) internal returns (address a) {
        a = node(i);
        vm.deal(a, stake + 1 ether);
        vm.prank(a);
        reg.register{value: stake}(string(abi.encodePacked("peer-", bytes32(i))), bytes32(0), "", gpu, vram);
    }
}
