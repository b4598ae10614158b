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
    uint256 private constant INVALID = 58;

    /// @notice Whether `peerId` is the canonical base58btc PeerId of the Ed25519 public key `publicKey`.
    function isEd25519PeerId(bytes memory peerId, bytes32 publicKey) internal pure returns (bool) {
        if (peerId.length != PEER_ID_LENGTH || peerId[0] != "1") return false;
        uint256 high; // the number's bits from 128 up
        uint256 low; // its low 128 bits
        for (uint256 i = 1; i < PEER_ID_LENGTH; ++i) {
            uint256 digit = _digit(uint8(peerId[i]));
            if (digit == INVALID) return false;
            low = low * 58 + digit;
            high = high * 58 + (low >> 128);
            low &= MASK128;
        }
        uint256 key = uint256(publicKey);
        return low == key & MASK128 && high == (ED25519_PREFIX << 128 | key >> 128);
    }

    /// @dev The value of a base58btc (Bitcoin alphabet) character, or INVALID: 1-9 A-H J-N P-Z a-k m-z.
    function _digit(uint8 c) private pure returns (uint256) {
        if (c >= 0x31 && c <= 0x39) return c - 0x31; // 1-9: 0..8
        if (c >= 0x41 && c <= 0x48) return c - 0x41 + 9; // A-H: 9..16
        if (c >= 0x4a && c <= 0x4e) return c - 0x4a + 17; // J-N: 17..21
        if (c >= 0x50 && c <= 0x5a) return c - 0x50 + 22; // P-Z: 22..32
        if (c >= 0x61 && c <= 0x6b) return c - 0x61 + 33; // a-k: 33..43
        if (c >= 0x6d && c <= 0x7a) return c - 0x6d + 44; // m-z: 44..57
        return INVALID;
    }
}
