// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Sha512
/// @notice SHA-512 (FIPS 180-4) of a byte string in memory, for Ed25519 (RFC 8032), which hashes with SHA-512 and has
///         no precompile. Written for the few blocks of a signature check (the rounds are in assembly: ~77k gas per
///         128-byte block), not for bulk.
/// @dev The state and the schedule are uint64 arrays in memory (a word per 32-byte slot); the rounds work on
///      256-bit EVM words and mask every sum to 64 bits, the mod-2^64 arithmetic the standard asks for.
library Sha512 {
    /// @dev The 80 round constants (first 64 bits of the fractional parts of the cube roots of the first 80 primes),
    ///      8 bytes each, big-endian.
    bytes internal constant K =
        hex"428a2f98d728ae227137449123ef65cdb5c0fbcfec4d3b2fe9b5dba58189dbbc3956c25bf348b53859f111f1b605d019923f82a4af194f9bab1c5ed5da6d8118d807aa98a303024212835b0145706fbe243185be4ee4b28c550c7dc3d5ffb4e272be5d74f27b896f80deb1fe3b1696b19bdc06a725c71235c19bf174cf692694e49b69c19ef14ad2efbe4786384f25e30fc19dc68b8cd5b5240ca1cc77ac9c652de92c6f592b02754a7484aa6ea6e4835cb0a9dcbd41fbd476f988da831153b5983e5152ee66dfaba831c66d2db43210b00327c898fb213fbf597fc7beef0ee4c6e00bf33da88fc2d5a79147930aa72506ca6351e003826f142929670a0e6e7027b70a8546d22ffc2e1b21385c26c9264d2c6dfc5ac42aed53380d139d95b3df650a73548baf63de766a0abb3c77b2a881c2c92e47edaee692722c851482353ba2bfe8a14cf10364a81a664bbc423001c24b8b70d0f89791c76c51a30654be30d192e819d6ef5218d69906245565a910f40e35855771202a106aa07032bbd1b819a4c116b8d2d0c81e376c085141ab532748774cdf8eeb9934b0bcb5e19b48a8391c0cb3c5c95a634ed8aa4ae3418acb5b9cca4f7763e373682e6ff3d6b2b8a3748f82ee5defb2fc78a5636f43172f6084c87814a1f0ab728cc702081a6439ec90befffa23631e28a4506cebde82bde9bef9a3f7b2c67915c67178f2e372532bca273eceea26619cd186b8c721c0c207eada7dd6cde0eb1ef57d4f7fee6ed17806f067aa72176fba0a637dc5a2c898a6113f9804bef90dae1b710b35131c471b28db77f523047d8432caab7b40c724933c9ebe0a15c9bebc431d67c49c100d4c4cc5d4becb3e42b6597f299cfc657e2a5fcb6fab3ad6faec6c44198c4a475817";

    /// @notice The 64-byte digest of `data`, as its first and last 32 bytes.
    function hash(bytes memory data) internal pure returns (bytes32 high, bytes32 low) {
        uint64[8] memory h = [
            uint64(0x6a09e667f3bcc908),
            0xbb67ae8584caa73b,
            0x3c6ef372fe94f82b,
            0xa54ff53a5f1d36f1,
            0x510e527fade682d1,
            0x9b05688c2b3e6c1f,
            0x1f83d9abfb41bd6b,
            0x5be0cd19137e2179
        ];
        bytes memory padded = _pad(data);
        bytes memory k = K;
        uint64[80] memory w;
        for (uint256 off; off < padded.length; off += 128) {
            _schedule(w, padded, off);
            _compress(h, w, k);
        }
        high = bytes32(uint256(h[0]) << 192 | uint256(h[1]) << 128 | uint256(h[2]) << 64 | uint256(h[3]));
        low = bytes32(uint256(h[4]) << 192 | uint256(h[5]) << 128 | uint256(h[6]) << 64 | uint256(h[7]));
    }

    /// @dev data || 0x80 || zeros || the bit length as a 128-bit big-endian number, to a multiple of 128 bytes.
    function _pad(bytes memory data) private pure returns (bytes memory padded) {
        uint256 n = data.length;
        padded = new bytes((n + 17 + 127) / 128 * 128);
        assembly ("memory-safe") {
            mcopy(add(padded, 32), add(data, 32), n)
        }
        padded[n] = 0x80;
        uint256 bits = n * 8;
        for (uint256 i; i < 16 && bits != 0; ++i) {
            padded[padded.length - 1 - i] = bytes1(uint8(bits));
            bits >>= 8;
        }
    }

    /// @dev The message schedule W[0..79] of the block at byte `off` (one 64-bit word per 32-byte slot of `w`):
    ///      W[t] = M[t] for t < 16, else sigma1(W[t-2]) + W[t-7] + sigma0(W[t-15]) + W[t-16].
    function _schedule(uint64[80] memory w, bytes memory b, uint256 off) private pure {
        assembly ("memory-safe") {
            function rotr(x, n) -> y {
                y := and(or(shr(n, x), shl(sub(64, n), x)), 0xffffffffffffffff)
            }
            let src := add(add(b, 32), off)
            for { let t := 0 } lt(t, 16) { t := add(t, 1) } {
                mstore(add(w, mul(t, 32)), shr(192, mload(add(src, mul(t, 8)))))
            }
            for { let p := add(w, 512) } lt(p, add(w, 2560)) { p := add(p, 32) } {
                let x := mload(sub(p, 480)) // W[t-15]
                let y := mload(sub(p, 64)) // W[t-2]
                let s0 := xor(xor(rotr(x, 1), rotr(x, 8)), shr(7, x))
                let s1 := xor(xor(rotr(y, 19), rotr(y, 61)), shr(6, y))
                mstore(p, and(add(add(s1, mload(sub(p, 224))), add(s0, mload(sub(p, 512)))), 0xffffffffffffffff))
            }
        }
    }

    /// @dev The 80 rounds on one block; adds the result into `h`. Each round:
    ///      T1 = h + Sigma1(e) + Ch(e, f, g) + K[t] + W[t], T2 = Sigma0(a) + Maj(a, b, c), then the registers shift
    ///      (h = g, g = f, f = e, e = d + T1, d = c, c = b, b = a, a = T1 + T2), all mod 2^64.
    function _compress(uint64[8] memory h, uint64[80] memory w, bytes memory k) private pure {
        assembly ("memory-safe") {
            function rotr(x, n) -> y {
                y := and(or(shr(n, x), shl(sub(64, n), x)), 0xffffffffffffffff)
            }
            function bigSigma0(x) -> y {
                y := xor(xor(rotr(x, 28), rotr(x, 34)), rotr(x, 39))
            }
            function bigSigma1(x) -> y {
                y := xor(xor(rotr(x, 14), rotr(x, 18)), rotr(x, 41))
            }
            function ch(x, y, z) -> r {
                r := xor(and(x, y), and(not(x), z))
            }
            function maj(x, y, z) -> r {
                r := xor(xor(and(x, y), and(x, z)), and(y, z))
            }
            let a := mload(h)
            let b := mload(add(h, 32))
            let c := mload(add(h, 64))
            let d := mload(add(h, 96))
            let e := mload(add(h, 128))
            let f := mload(add(h, 160))
            let g := mload(add(h, 192))
            let hh := mload(add(h, 224))
            for { let t := 0 } lt(t, 80) { t := add(t, 1) } {
                let t1 :=
                    add(
                        add(hh, bigSigma1(e)),
                        add(ch(e, f, g), add(shr(192, mload(add(add(k, 32), mul(t, 8)))), mload(add(w, mul(t, 32)))))
                    )
                let t2 := add(bigSigma0(a), maj(a, b, c))
                hh := g
                g := f
                f := e
                e := and(add(d, t1), 0xffffffffffffffff)
                d := c
                c := b
                b := a
                a := and(add(t1, t2), 0xffffffffffffffff)
            }
            mstore(h, and(add(mload(h), a), 0xffffffffffffffff))
            mstore(add(h, 32), and(add(mload(add(h, 32)), b), 0xffffffffffffffff))
            mstore(add(h, 64), and(add(mload(add(h, 64)), c), 0xffffffffffffffff))
            mstore(add(h, 96), and(add(mload(add(h, 96)), d), 0xffffffffffffffff))
            mstore(add(h, 128), and(add(mload(add(h, 128)), e), 0xffffffffffffffff))
            mstore(add(h, 160), and(add(mload(add(h, 160)), f), 0xffffffffffffffff))
            mstore(add(h, 192), and(add(mload(add(h, 192)), g), 0xffffffffffffffff))
            mstore(add(h, 224), and(add(mload(add(h, 224)), hh), 0xffffffffffffffff))
        }
    }
}
