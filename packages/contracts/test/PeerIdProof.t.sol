// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {PeerIdFixture} from "./utils/PeerIdFixture.sol";
import {console} from "./utils/Test.sol";
import {NodeRegistryBase} from "../src/registry/NodeRegistryBase.sol";
import {Ed25519Vectors} from "./vectors/Ed25519Vectors.sol";

/// NodeRegistry.register needs the PeerId's Ed25519 key: the PeerId must be the key's, and the key must sign
/// peerBindingMessage(msg.sender) on this chain and registry (vectors signed off chain by libp2p keys).
contract PeerIdProofTest is PeerIdFixture {
    function setUp() public {
        deployRegistry();
    }

    function test_bindingMessageLayout() public view {
        bytes memory m = reg.peerBindingMessage(address(0x1000));
        assertEq(m.length, 95);
        assertEq(
            keccak256(m),
            keccak256(abi.encodePacked("jobmesh/peer-binding/v1", uint256(31337), address(reg), address(0x1000)))
        );
    }

    function test_registersEveryKeyWithItsProof() public {
        Ed25519Vectors.Binding[] memory all = Ed25519Vectors.bindings();
        for (uint256 i; i < all.length; ++i) {
            uint256 g = gasleft();
            registerAs(all[i].owner, all[i]);
            if (i == all.length - 1) console.log("register gas with the PeerId proof", g - gasleft());
            bytes32 ph = keccak256(bytes(all[i].peerId));
            assertEq(reg.peerIdOwner(ph), all[i].owner);
            assertEq(reg.nodeInfo(all[i].owner).peerIdHash, ph);
        }
    }

    function test_revertsAKeyThatIsNotThePeerIds() public {
        Ed25519Vectors.Binding memory b = binding(0);
        b.publicKey = binding(1).publicKey;
        expectRegisterRevert(b.owner, b, NodeRegistryBase.PeerIdKeyMismatch.selector);
    }

    /// Key 1 proves itself, but the PeerId named is key 0's.
    function test_revertsAnotherKeysPeerId() public {
        Ed25519Vectors.Binding memory b = binding(1);
        b.peerId = binding(0).peerId;
        expectRegisterRevert(b.owner, b, NodeRegistryBase.PeerIdKeyMismatch.selector);
    }

    /// The right PeerId and key, signed by another key.
    function test_revertsASignatureByAnotherKey() public {
        Ed25519Vectors.Binding memory b = binding(0);
        b.signature = binding(1).signature;
        expectRegisterRevert(b.owner, b, NodeRegistryBase.BadPeerIdProof.selector);
    }

    /// A proof made for owner 0, sent by owner 1 (say, copied from the mempool).
    function test_revertsAProofForAnotherOwner() public {
        expectRegisterRevert(binding(1).owner, binding(0), NodeRegistryBase.BadPeerIdProof.selector);
    }

    function test_revertsAProofForAnotherChainOrRegistry() public {
        (Ed25519Vectors.Binding memory otherChain, Ed25519Vectors.Binding memory otherRegistry) =
            Ed25519Vectors.replays();
        expectRegisterRevert(otherChain.owner, otherChain, NodeRegistryBase.BadPeerIdProof.selector);
        expectRegisterRevert(otherRegistry.owner, otherRegistry, NodeRegistryBase.BadPeerIdProof.selector);
        // and this chain's proof on chain 1
        vm.chainId(1);
        expectRegisterRevert(binding(0).owner, binding(0), NodeRegistryBase.BadPeerIdProof.selector);
        vm.chainId(31337);
        registerAs(binding(0).owner, binding(0));
    }

    function test_revertsMalformedSignatures() public {
        Ed25519Vectors.Binding memory b = binding(2);
        bytes memory sig = b.signature;
        b.signature = new bytes(63);
        for (uint256 i; i < 63; ++i) {
            b.signature[i] = sig[i];
        }
        expectRegisterRevert(b.owner, b, NodeRegistryBase.BadPeerIdProof.selector);
        b.signature = bytes.concat(sig, bytes1(0));
        expectRegisterRevert(b.owner, b, NodeRegistryBase.BadPeerIdProof.selector);
        b.signature = "";
        expectRegisterRevert(b.owner, b, NodeRegistryBase.BadPeerIdProof.selector);
        // S + L: the same group equation, a non-canonical scalar
        b.signature = bytes.concat(
            slice32(sig, 0),
            bytes32(le(le(uint256(slice32(sig, 32))) + 2 ** 252 + 27742317777372353535851937790883648493))
        );
        expectRegisterRevert(b.owner, b, NodeRegistryBase.BadPeerIdProof.selector);
        b.signature = sig;
        registerAs(b.owner, b);
    }

    function test_revertsPeerIdStringsThatAreNotTheKeys() public {
        Ed25519Vectors.Binding memory b = binding(3);
        bytes memory good = bytes(b.peerId);
        string[6] memory bad = [
            string(bytes.concat(good, "a")), // too long
            string(sliceBytes(good, 0, 51)), // too short
            string(bytes.concat("2", sliceBytes(good, 1, 51))), // not the leading 0x00
            "QmYyQSo1c1Ym7orWxLYvCrM2EmxFTANf8wXmmE7DWjhx5N", // an RSA (sha2-256) PeerId
            "",
            string(good)
        ];
        bad[5] = string(withChar(good, 20, "0")); // '0' is not in the base58 alphabet
        for (uint256 i; i < bad.length; ++i) {
            b.peerId = bad[i];
            vm.deal(b.owner, 2 ether);
            vm.expectRevert();
            vm.prank(b.owner);
            reg.register{value: 2 ether}(b.peerId, b.publicKey, b.signature, GPU, 24);
        }
        // one other (valid) character anywhere names another key
        for (uint256 pos = 1; pos < 52; pos += 10) {
            b.peerId = string(withChar(good, pos, good[pos] == "z" ? bytes1("y") : bytes1("z")));
            expectRegisterRevert(b.owner, b, NodeRegistryBase.PeerIdKeyMismatch.selector);
        }
    }

    /// forge-config: default.fuzz.runs = 32
    function testFuzz_revertsAnyFlippedSignatureBit(uint256 which, uint256 bit) public {
        Ed25519Vectors.Binding memory b = binding(which % 6);
        bit %= 512;
        b.signature[bit / 8] ^= bytes1(uint8(1) << uint8(bit % 8));
        expectRegisterRevert(b.owner, b, NodeRegistryBase.BadPeerIdProof.selector);
    }

    function slice32(bytes memory b, uint256 offset) internal pure returns (bytes32 v) {
        assembly {
            v := mload(add(add(b, 32), offset))
        }
    }

    function sliceBytes(bytes memory b, uint256 from, uint256 to) internal pure returns (bytes memory out) {
        out = new bytes(to - from);
        for (uint256 i = from; i < to; ++i) {
            out[i - from] = b[i];
        }
    }

    function withChar(bytes memory b, uint256 pos, bytes1 c) internal pure returns (bytes memory out) {
        out = bytes.concat(b);
        out[pos] = c;
    }

    function le(uint256 v) internal pure returns (uint256 r) {
        for (uint256 i; i < 32; ++i) {
            r |= ((v >> (8 * i)) & 0xff) << (8 * (31 - i));
        }
    }
}
