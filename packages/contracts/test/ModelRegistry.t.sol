// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test, Vm} from "./utils/Test.sol";
import {NodeRegistry} from "../src/NodeRegistry.sol";
import {ModelRegistry} from "../src/ModelRegistry.sol";
import {UncheckedPeerIdRegistry} from "./utils/UncheckedPeerIdRegistry.sol";
import {NodeRegistryBase} from "../src/registry/NodeRegistryBase.sol";

/// Model holders: announce, drop, prune, and distribution prompts.
contract ModelRegistryTest is Test {
    NodeRegistry reg;
    ModelRegistry models;
    bytes32 constant GPU = keccak256("cpu");
    string constant ID = "ipfs://bafy-model";
    string constant ID2 = "ipfs://bafy-other";
    bytes32 constant M = keccak256(bytes(ID));
    bytes32 constant M2 = keccak256(bytes(ID2));

    /// This contract plays the escrow, which the registry tells when a node becomes available.
    function onNodeAvailable(address) external {}

    function setUp() public {
        vm.warp(1_700_000_000);
        vm.roll(100);
        reg = new UncheckedPeerIdRegistry(
            NodeRegistryBase.Params({minStake: 1 ether, stakeCap: 10 ether, exitCooldown: 1 days, maxDrawAttempts: 64, probeInterval: 1 days})
        );
        reg.setEscrow(address(this));
        models = new ModelRegistry(reg);
    }

    function node(uint256 i) internal pure returns (address) {
        return address(uint160(0xC000 + i));
    }

    function register(uint256 i) internal returns (address a) {
        a = node(i);
        vm.deal(a, 3 ether);
        vm.prank(a);
        reg.register{value: 2 ether}(string(abi.encodePacked("peer-", bytes32(i))), bytes32(0), "", GPU, 16);
    }

    function announce(address a, string memory id) internal {
        vm.prank(a);
        models.announce(id);
    }

    function one(address a) internal pure returns (address[] memory list) {
        list = new address[](1);
        list[0] = a;
    }

    function test_announceListsTheHolder() public {
        address a = register(1);
        address b = register(2);
        announce(a, ID);
        announce(b, ID);
        announce(a, ID2);
        assertEq(models.holderCount(M), 2, "two holders");
        assertTrue(models.holds(a, M) && models.holds(b, M) && models.holds(a, M2), "holds");
        assertTrue(!models.holds(b, M2), "b does not hold M2");
        address[] memory page = models.holdersOf(M, 0, 10);
        assertEq(page.length, 2, "page");
        assertEq(page[0], a, "first");
        assertEq(page[1], b, "second");
        assertEq(models.holdersOf(M, 1, 10).length, 1, "offset");
        assertEq(models.holdersOf(M, 5, 10).length, 0, "past the end");
        assertEq(models.modelsOf(a).length, 2, "a's models");
    }

    function test_announceIsRefusedToStrangersTwiceAndBeyondTheCap() public {
        address stranger = node(9);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(ModelRegistry.NotActive.selector, stranger));
        models.announce(ID);

        address a = register(1);
        announce(a, ID);
        vm.prank(a);
        vm.expectRevert(ModelRegistry.AlreadyHeld.selector);
        models.announce(ID);
        vm.prank(a);
        vm.expectRevert(ModelRegistry.InvalidModel.selector);
        models.announce("");
        bytes memory long = new bytes(models.MAX_MODEL_ID_BYTES() + 1);
        vm.prank(a);
        vm.expectRevert(ModelRegistry.InvalidModel.selector);
        models.announce(string(long));

        for (uint256 i = 1; i < models.MAX_MODELS(); i++) {
            announce(a, string(abi.encodePacked("ipfs://m", bytes32(i))));
        }
        vm.prank(a);
        vm.expectRevert(ModelRegistry.TooManyModels.selector);
        models.announce(ID2);
    }

    function test_dropKeepsTheOtherHoldersFindable() public {
        address a = register(1);
        address b = register(2);
        address c = register(3);
        announce(a, ID);
        announce(b, ID);
        announce(c, ID);
        vm.prank(a);
        models.drop(M);
        assertEq(models.holderCount(M), 2, "two left");
        assertTrue(!models.holds(a, M) && models.holds(b, M) && models.holds(c, M), "a gone, b and c stay");
        assertEq(models.modelsOf(a).length, 0, "a holds nothing");
        // the moved holder (c took a's place) can still drop itself
        vm.prank(c);
        models.drop(M);
        address[] memory page = models.holdersOf(M, 0, 10);
        assertEq(page.length, 1, "one left");
        assertEq(page[0], b, "b");
        vm.prank(a);
        vm.expectRevert(ModelRegistry.NotHeld.selector);
        models.drop(M);
    }

    function test_anyonePrunesAnExitingNodeButNotAnActiveOne() public {
        address a = register(1);
        address b = register(2);
        announce(a, ID);
        announce(b, ID);
        vm.expectRevert(abi.encodeWithSelector(ModelRegistry.StillActive.selector, a));
        models.prune(M, a);
        vm.prank(a);
        reg.requestExit();
        models.prune(M, a);
        assertTrue(!models.holds(a, M), "pruned");
        assertEq(models.holderCount(M), 1, "b stays");
        vm.prank(a);
        vm.expectRevert(abi.encodeWithSelector(ModelRegistry.NotActive.selector, a));
        models.announce(ID);
    }

    function test_promptNamesTheNodesAndEmitsOneEventEach() public {
        address a = register(1);
        address b = register(2);
        address c = register(3);
        announce(a, ID);
        address[] memory list = new address[](2);
        list[0] = b;
        list[1] = c;
        vm.recordLogs();
        vm.prank(a);
        models.prompt(ID, list);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        bytes32 sig = keccak256("ModelPrompted(bytes32,address,address,string)");
        uint256 seen;
        for (uint256 i = 0; i < logs.length; i++) {
            if (logs[i].topics[0] != sig) continue;
            assertEq(logs[i].topics[1], M, "model");
            assertEq(address(uint160(uint256(logs[i].topics[2]))), list[seen], "prompted node");
            assertEq(address(uint160(uint256(logs[i].topics[3]))), a, "by");
            assertEq(keccak256(abi.decode(logs[i].data, (bytes))), M, "the model id to fetch");
            seen++;
        }
        assertEq(seen, 2, "one event per prompted node");
        assertEq(models.promptedAt(M, b), block.timestamp, "recorded");
    }

    function test_promptIsRefusedOutsideItsRules() public {
        address a = register(1);
        address b = register(2);
        address c = register(3);
        address d = register(4);
        announce(a, ID);
        announce(d, ID);
        // only a holder prompts
        vm.prank(b);
        vm.expectRevert(ModelRegistry.NotHeld.selector);
        models.prompt(ID, one(c));
        // a holder is not prompted, nor a stranger
        vm.prank(a);
        vm.expectRevert(abi.encodeWithSelector(ModelRegistry.NotPromptable.selector, d));
        models.prompt(ID, one(d));
        vm.prank(a);
        vm.expectRevert(abi.encodeWithSelector(ModelRegistry.NotPromptable.selector, node(9)));
        models.prompt(ID, one(node(9)));
        // at most MAX_PROMPTS at once
        address[] memory many = new address[](models.MAX_PROMPTS() + 1);
        for (uint256 i = 0; i < many.length; i++) {
            many[i] = register(10 + i);
        }
        vm.prank(a);
        vm.expectRevert(ModelRegistry.TooManyPrompts.selector);
        models.prompt(ID, many);
        // once per cooldown for the prompter, and for the prompted node whoever prompts it
        vm.prank(a);
        models.prompt(ID, one(b));
        vm.prank(a);
        vm.expectRevert(ModelRegistry.PromptTooSoon.selector);
        models.prompt(ID, one(c));
        vm.prank(d);
        vm.expectRevert(abi.encodeWithSelector(ModelRegistry.NotPromptable.selector, b));
        models.prompt(ID, one(b));
        vm.warp(block.timestamp + models.PROMPT_COOLDOWN());
        vm.prank(a);
        models.prompt(ID, one(c));
        vm.prank(d);
        models.prompt(ID, one(b));
        // a holder that exits cannot prompt
        vm.prank(d);
        reg.requestExit();
        vm.warp(block.timestamp + models.PROMPT_COOLDOWN());
        vm.prank(d);
        vm.expectRevert(abi.encodeWithSelector(ModelRegistry.NotActive.selector, d));
        models.prompt(ID, one(c));
    }
}
