// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title PeerId
/// @notice Ties a libp2p PeerId string to an Ed25519 public key. An Ed25519 PeerId ("12D3KooW...") is the base58btc
///         text of the identity multihash of the key's protobuf: 0x00 (identity) 0x24 (36 bytes), then
///         0x08 0x01 (KeyType Ed25519) 0x12 0x20 (32 bytes of data) and the 32-byte key: 38 bytes, always 52 characters.
/// @dev Base58 writes the leading 0x00 byte as "1"; the other 51 characters are the base-58 digits of the 37-byte
///      number 0x2408011220 || key (between 58^50 and 58^51, so exactly 51 digits, none of them a leading zero). The
///      string is decoded exactly into two limbs (the low 128 bits and the rest) and compared with that number, so
///      the one accepted string for a key is its canonical PeerId.
library PeerId {
    /// @dev The multihash and protobuf prefix of an Ed25519 key after the leading 0x00: 0x24 0x08 0x01 0x12 0x20.
    uint256 internal constant ED25519_PREFIX = 0x2408011220;
    uint256 internal constant PEER_ID_LENGTH = 52;
    uint256 private constant MASK128 = (1 << 128) - 1;
    /// @dev The base58btc (Bitcoin alphabet: 1-9 A-H J-N P-Z a-k m-z) value of each character from "1" (0x31) to "z"
    ///      (0x7a); 0xff for the characters in that range outside the alphabet (0x3a to 0x40, I, O, 0x5b to 0x60, l).
    bytes internal constant DIGITS =
        hex"000102030405060708ffffffffffffff090a0b0c0d0e0f10ff1112131415ff161718191a1b1c1d1e1f20ffffffffffff2122232425262728292a2bff2c2d2e2f30313233343536373839";

    /// @notice Whether `peerId` is the canonical base58btc PeerId of the Ed25519 public key `publicKey`.
    function isEd25519PeerId(bytes memory peerId, bytes32 publicKey) internal pure returns (bool) {
        if (peerId.length != PEER_ID_LENGTH || peerId[0] != "1") return false;
        uint256 high; // the number's bits from 128 up
        uint256 low; // its low 128 bits
        bytes memory digits = DIGITS;
        unchecked {
            // no overflow: low < 2^128 * 58 + 58 and high < 58^51 / 2^128 < 2^171 at every step
            for (uint256 i = 1; i < PEER_ID_LENGTH; ++i) {
                uint256 c = uint8(peerId[i]);
                if (c < 0x31 || c > 0x7a) return false;
                uint256 digit = uint8(digits[c - 0x31]);
                if (digit == 0xff) return false;
                low = low * 58 + digit;
                high = high * 58 + (low >> 128);
                low &= MASK128;
            }
        }
        uint256 key = uint256(publicKey);
        return low == key & MASK128 && high == (ED25519_PREFIX << 128 | key >> 128);
    }
}
