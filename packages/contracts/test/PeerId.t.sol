// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test, console} from "./utils/Test.sol";
import {PeerId} from "../src/libraries/PeerId.sol";
import {Ed25519Vectors} from "./vectors/Ed25519Vectors.sol";

/// PeerId.sol: the base58btc decode of an Ed25519 PeerId against PeerIds made by libp2p (test/vectors).
contract PeerIdTest is Test {
    bytes internal constant ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

    function test_digitTableIsTheBitcoinAlphabet() public pure {
        bytes memory digits = PeerId.DIGITS;
        assertEq(digits.length, 0x7a - 0x31 + 1);
        uint256 valid;
        for (uint256 i; i < digits.length; ++i) {
            if (uint8(digits[i]) != 0xff) ++valid;
        }
        assertEq(valid, 58);
        for (uint256 d; d < 58; ++d) {
            assertEq(uint8(digits[uint8(ALPHABET[d]) - 0x31]), d);
        }
    }

    function test_acceptsLibp2pPeerIdsOfTheirKeys() public view {
        Ed25519Vectors.Binding[] memory all = Ed25519Vectors.bindings();
        for (uint256 i; i < all.length; ++i) {
            uint256 g = gasleft();
            assertTrue(PeerId.isEd25519PeerId(bytes(all[i].peerId), all[i].publicKey));
            if (i == 0) console.log("PeerId.isEd25519PeerId gas", g - gasleft());
            assertFalse(PeerId.isEd25519PeerId(bytes(all[i].peerId), all[(i + 1) % all.length].publicKey));
        }
    }

    /// Characters outside the alphabet (0 I O l, and any byte outside "1".."z") anywhere after the leading "1".
    function testFuzz_refusesCharactersOutsideTheAlphabet(uint256 pos, uint8 c) public pure {
        Ed25519Vectors.Binding memory b = Ed25519Vectors.bindings()[0];
        bytes memory p = bytes(b.peerId);
        pos = 1 + pos % 51;
        bool inAlphabet;
        for (uint256 d; d < 58; ++d) {
            if (ALPHABET[d] == bytes1(c)) inAlphabet = true;
        }
        vm.assume(!inAlphabet);
        p[pos] = bytes1(c);
        assertFalse(PeerId.isEd25519PeerId(p, b.publicKey));
    }
}
