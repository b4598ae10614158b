// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test, console} from "./utils/Test.sol";
import {Sha512} from "../src/libraries/Sha512.sol";
import {Ed25519} from "../src/libraries/Ed25519.sol";
import {Ed25519Vectors} from "./vectors/Ed25519Vectors.sol";

/// SHA-512 and Ed25519 against vectors made off chain by node:crypto and libp2p keys (test/vectors/generate.js).
contract Ed25519Test is Test {
    function test_sha512MatchesNodeCrypto() public pure {
        Ed25519Vectors.Digest[] memory v = Ed25519Vectors.digests();
        for (uint256 i; i < v.length; ++i) {
            (bytes32 high, bytes32 low) = Sha512.hash(v[i].data);
            assertEq(high, v[i].high);
            assertEq(low, v[i].low);
        }
    }

    function test_verifiesLibp2pSignatures() public view {
        Ed25519Vectors.Signature[] memory v = Ed25519Vectors.signatures();
        for (uint256 i; i < v.length; ++i) {
            (bytes32 r, bytes32 s) = split(v[i].signature);
            assertTrue(Ed25519.verify(v[i].publicKey, r, s, v[i].message), "valid signature rejected");
        }
    }

    function test_gasOfOneVerification() public view {
        Ed25519Vectors.Signature memory v = Ed25519Vectors.signatures()[3]; // a 95-byte message, as a PeerId binding
        (bytes32 r, bytes32 s) = split(v.signature);
        uint256 g = gasleft();
        bool ok = Ed25519.verify(v.publicKey, r, s, v.message);
        console.log("Ed25519.verify gas (95-byte message)", g - gasleft());
        assertTrue(ok);
    }

    /// Any one flipped bit of the key, the signature or the message makes the signature invalid.
    /// forge-config: default.fuzz.runs = 48
    function testFuzz_rejectsAnyFlippedBit(uint256 which, uint256 bit) public view {
        Ed25519Vectors.Signature[] memory all = Ed25519Vectors.signatures();
        Ed25519Vectors.Signature memory v = all[which % all.length];
        bytes32 key = v.publicKey;
        bytes memory sig = v.signature;
        bytes memory message = v.message;
        uint256 total = 256 + 512 + message.length * 8;
        bit %= total;
        if (bit < 256) key ^= bytes32(uint256(1) << bit);
        else if (bit < 768) sig[(bit - 256) / 8] ^= bytes1(uint8(1) << uint8(bit % 8));
        else message[(bit - 768) / 8] ^= bytes1(uint8(1) << uint8(bit % 8));
        (bytes32 r, bytes32 s) = split(sig);
        assertFalse(Ed25519.verify(key, r, s, message));
    }

    /// S + L signs the same equation as S ([L]B is the neutral element) but is not canonical: rejected.
    function test_rejectsNonCanonicalS() public view {
        Ed25519Vectors.Signature memory v = Ed25519Vectors.signatures()[1];
        (bytes32 r, bytes32 s) = split(v.signature);
        bytes32 sPlusL = bytes32(le(le(uint256(s)) + Ed25519.L));
        assertFalse(Ed25519.verify(v.publicKey, r, sPlusL, v.message));
        assertFalse(Ed25519.verify(v.publicKey, r, bytes32(type(uint256).max), v.message));
    }

    function test_decodeRejectsNonCanonicalPoints() public view {
        (bool ok,,) = Ed25519.decode(bytes32(le(Ed25519.P))); // y = p
        assertFalse(ok);
        (ok,,) = Ed25519.decode(bytes32(le(Ed25519.P + 1))); // y = p + 1, the non-canonical form of y = 1
        assertFalse(ok);
        (ok,,) = Ed25519.decode(bytes32(le(1 | 1 << 255))); // (0, 1) with the sign bit of x set
        assertFalse(ok);
        (ok,,) = Ed25519.decode(bytes32(le(2))); // y = 2: (y^2 - 1)/(d y^2 + 1) has no square root
        assertFalse(ok);
        uint256 x;
        uint256 y;
        (ok, x, y) = Ed25519.decode(bytes32(le(1)));
        assertTrue(ok);
        assertEq(x, 0);
        assertEq(y, 1);
    }

    function test_basePointRoundTrip() public view {
        bytes32 encoded = 0x5866666666666666666666666666666666666666666666666666666666666666;
        (bool ok, uint256 x, uint256 y) = Ed25519.decode(encoded);
        assertTrue(ok);
        assertEq(x, Ed25519.BX);
        assertEq(y, Ed25519.BY);
        assertEq(Ed25519.encode([x, y, 1, mulmod(x, y, Ed25519.P)]), encoded);
    }

    function split(bytes memory sig) internal pure returns (bytes32 r, bytes32 s) {
        assembly {
            r := mload(add(sig, 32))
            s := mload(add(sig, 64))
        }
    }

    function le(uint256 v) internal pure returns (uint256 r) {
        for (uint256 i; i < 32; ++i) {
            r |= ((v >> (8 * i)) & 0xff) << (8 * (31 - i));
        }
    }
}
