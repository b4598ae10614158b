// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {PeerIdFixture} from "../utils/PeerIdFixture.sol";
import {NodeRegistryBase} from "../../src/registry/NodeRegistryBase.sol";
import {Ed25519Vectors} from "../vectors/Ed25519Vectors.sol";

/// Attack 6 (PeerId squatting): an attacker registers a victim's PeerId first, so the victim cannot register and
/// the records the victim signs name the attacker's address as the PeerId's owner. Every way to try it fails: its
/// own key does not make the victim's PeerId, it cannot sign with the victim's key, and the victim's own proof (seen
/// in the mempool) binds the victim's address only. The victim then registers.
contract PeerIdSquatTest is PeerIdFixture {
    Ed25519Vectors.Binding internal victim;
    Ed25519Vectors.Binding internal attacker;

    function setUp() public {
        deployRegistry();
        victim = binding(0);
        attacker = binding(1);
    }

    function test_attackerCannotRegisterTheVictimsPeerId() public {
        // 1. the victim's PeerId with the attacker's own key and a valid proof of that key
        Ed25519Vectors.Binding memory a = attacker;
        a.peerId = victim.peerId;
        expectRegisterRevert(attacker.owner, a, NodeRegistryBase.PeerIdKeyMismatch.selector);
        // 2. the victim's PeerId and key with the attacker's signature
        a = victim;
        a.signature = attacker.signature;
        expectRegisterRevert(attacker.owner, a, NodeRegistryBase.BadPeerIdProof.selector);
        // 3. the victim's own transaction, copied from the mempool and sent first from the attacker's address
        expectRegisterRevert(attacker.owner, victim, NodeRegistryBase.BadPeerIdProof.selector);

        bytes32 ph = keccak256(bytes(victim.peerId));
        assertEq(reg.peerIdOwner(ph), address(0));
        registerAs(victim.owner, victim);
        assertEq(reg.peerIdOwner(ph), victim.owner);
        // the attacker registers its own PeerId only
        registerAs(attacker.owner, attacker);
        assertEq(reg.peerIdOwner(keccak256(bytes(attacker.peerId))), attacker.owner);
    }
}
