// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Sha512} from "./Sha512.sol";

/// @title Ed25519
/// @notice Verification of pure Ed25519 signatures (RFC 8032, section 5.1.7) on chain, for proofs of a libp2p
///         PeerId's key. No precompile exists: field arithmetic uses mulmod/addmod, square roots and inverses the
///         modexp precompile (0x05), points extended homogeneous coordinates (X:Y:Z:T, x = X/Z, y = Y/Z, xy = T/Z).
/// @dev The check is cofactorless: encode([S]B - [h]A) == R with h = SHA-512(R || A || M) mod L. Rejected: S >= L,
///      a public key that is not a canonical point encoding (y >= p, no square root, x = 0 with the sign bit set),
///      and any R that is not the canonical encoding of the computed point (so a non-canonical R never passes).
///      [S]B - [h]A is one double-scalar multiplication (Straus/Shamir over the 253 bits of the scalars), its loop in
///      assembly with the point on the stack. ~430k gas for a 95-byte message (~155k of it SHA-512).
library Ed25519 {
    /// @dev The field prime 2^255 - 19.
    uint256 internal constant P = 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed;
    /// @dev The order of the base point: 2^252 + 27742317777372353535851937790883648493.
    uint256 internal constant L = 0x1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3ed;
    /// @dev The curve constant d = -121665/121666 mod p, and 2d.
    uint256 internal constant D = 0x52036cee2b6ffe738cc740797779e89800700a4d4141d8ab75eb4dca135978a3;
    uint256 internal constant D2 = 0x2406d9dc56dffce7198e80f2eef3d13000e0149a8283b156ebd69b9426b2f159;
    /// @dev A square root of -1 mod p: 2^((p-1)/4).
    uint256 internal constant SQRT_M1 = 0x2b8324804fc1df0b2b4d00993dfbd7a72f431806ad2fe478c4ee1b274a0ea0b0;
    /// @dev The base point B (y = 4/5, x positive).
    uint256 internal constant BX = 0x216936d3cd6e53fec0a4e231fdd6dc5c692cc7609525a7b2c9562d608f25d51a;
    uint256 internal constant BY = 0x6666666666666666666666666666666666666666666666666666666666666658;
    /// @dev 2^256 mod L, to reduce a 512-bit hash.
    uint256 internal constant TWO_256_MOD_L = 0x0ffffffffffffffffffffffffffffffec6ef5bf4737dcf70d6ec31748d98951d;

    /// @notice Whether `signature` = R || S is a valid Ed25519 signature of `message` by the encoded key `publicKey`.
    function verify(bytes32 publicKey, bytes32 r, bytes32 s, bytes memory message) internal view returns (bool) {
        uint256 sc = _le(uint256(s));
        if (sc >= L) return false;
        (bool ok, uint256 ax, uint256 ay) = decode(publicKey);
        if (!ok) return false;
        (bytes32 high, bytes32 low) = Sha512.hash(abi.encodePacked(r, publicKey, message));
        // the digest read as a 512-bit little-endian number: its first 32 bytes are the low half
        uint256 h = addmod(mulmod(_le(uint256(low)), TWO_256_MOD_L, L), _le(uint256(high)) % L, L);
        uint256[4] memory q = _doubleMul(sc, h, (P - ax) % P, ay);
        return encode(q) == r;
    }

    /// @notice Decodes a point (RFC 8032, 5.1.3): y little-endian in bits 0..254, the sign of x in bit 255.
    function decode(bytes32 encoded) internal view returns (bool ok, uint256 x, uint256 y) {
        uint256 v = _le(uint256(encoded));
        uint256 sign = v >> 255;
        y = v & ((1 << 255) - 1);
        if (y >= P) return (false, 0, 0);
        uint256 yy = mulmod(y, y, P);
        uint256 u = addmod(yy, P - 1, P); // y^2 - 1
        uint256 w = addmod(mulmod(D, yy, P), 1, P); // d y^2 + 1
        // candidate root x = u w^3 (u w^7)^((p-5)/8)
        uint256 w3 = mulmod(mulmod(w, w, P), w, P);
        uint256 uw7 = mulmod(mulmod(u, w3, P), mulmod(w3, w, P), P);
        x = mulmod(mulmod(u, w3, P), _pow(uw7, (P - 5) / 8), P);
        uint256 wxx = mulmod(w, mulmod(x, x, P), P);
        if (wxx != u) {
            if (wxx != (P - u) % P) return (false, 0, 0);
            x = mulmod(x, SQRT_M1, P);
        }
        if (x == 0 && sign == 1) return (false, 0, 0);
        if (x & 1 != sign) x = P - x;
        ok = true;
    }

    /// @notice The canonical 32-byte encoding of a point in extended coordinates.
    function encode(uint256[4] memory q) internal view returns (bytes32) {
        uint256 zInv = _pow(q[2], P - 2);
        uint256 x = mulmod(q[0], zInv, P);
        uint256 y = mulmod(q[1], zInv, P);
        return bytes32(_le(y | (x & 1) << 255));
    }

    /// @dev [s]B + [h]N for s, h < 2^253 and the affine point N = (nx, ny): one doubling per bit, and one addition of
    ///      B, N or B + N when the bit of s or h is set.
    function _doubleMul(uint256 s, uint256 h, uint256 nx, uint256 ny) private pure returns (uint256[4] memory q) {
        uint256[4] memory b = [BX, BY, 1, mulmod(BX, BY, P)];
        uint256[4] memory n = [nx, ny, 1, mulmod(nx, ny, P)];
        uint256[4] memory bn = [BX, BY, 1, mulmod(BX, BY, P)];
        _add(bn, n);
        uint256[4][4] memory table = [[uint256(0), 1, 1, 0], b, n, bn]; // indexed by the bits (s_i, h_i)
        (q[0], q[1], q[2], q[3]) = _ladder(s, h, table);
    }

    /// @dev The double-and-add loop of _doubleMul, on the stack: each step doubles (x:y:z:t) and adds
    ///      table[s_i + 2 h_i] (RFC 8032, 5.1.4, a = -1; the formulas of _double and _add).
    function _ladder(uint256 s, uint256 h, uint256[4][4] memory table)
        private
        pure
        returns (uint256 x, uint256 y, uint256 z, uint256 t)
    {
        assembly ("memory-safe") {
            y := 1
            z := 1
            for { let i := 253 } i {} {
                i := sub(i, 1)
                // doubling: E = H - (X+Y)^2, F = 2Z^2 + G, G = X^2 - Y^2, H = X^2 + Y^2
                let e, f, g, hh
                {
                    let xx := mulmod(x, x, P)
                    let yy := mulmod(y, y, P)
                    hh := addmod(xx, yy, P)
                    g := addmod(xx, sub(P, yy), P)
                }
                {
                    let xy := addmod(x, y, P)
                    e := addmod(hh, sub(P, mulmod(xy, xy, P)), P)
                    f := addmod(mulmod(2, mulmod(z, z, P), P), g, P)
                }
                x := mulmod(e, f, P)
                y := mulmod(g, hh, P)
                z := mulmod(f, g, P)
                t := mulmod(e, hh, P)
                let bits := or(and(shr(i, s), 1), shl(1, and(shr(i, h), 1)))
                if bits {
                    // addition of p2 = table[bits]: E = B - A, F = D - C, G = D + C, H = B + A with
                    // A = (Y1-X1)(Y2-X2), B = (Y1+X1)(Y2+X2), C = T1 2d T2, D = 2 Z1 Z2
                    let p2 := mload(add(table, mul(bits, 32)))
                    {
                        let a := mulmod(addmod(y, sub(P, x), P), addmod(mload(add(p2, 32)), sub(P, mload(p2)), P), P)
                        let b := mulmod(addmod(y, x, P), addmod(mload(add(p2, 32)), mload(p2), P), P)
                        e := addmod(b, sub(P, a), P)
                        hh := addmod(b, a, P)
                    }
                    {
                        let c := mulmod(mulmod(t, D2, P), mload(add(p2, 96)), P)
                        let d := mulmod(mulmod(z, 2, P), mload(add(p2, 64)), P)
                        f := addmod(d, sub(P, c), P)
                        g := addmod(d, c, P)
                    }
                    x := mulmod(e, f, P)
                    y := mulmod(g, hh, P)
                    z := mulmod(f, g, P)
                    t := mulmod(e, hh, P)
                }
            }
        }
    }

    /// @dev p += q (RFC 8032, 5.1.4, for a = -1).
    function _add(uint256[4] memory p, uint256[4] memory q) private pure {
        uint256 a = mulmod(addmod(p[1], P - p[0], P), addmod(q[1], P - q[0], P), P); // (Y1-X1)(Y2-X2)
        uint256 b = mulmod(addmod(p[1], p[0], P), addmod(q[1], q[0], P), P); // (Y1+X1)(Y2+X2)
        uint256 c = mulmod(mulmod(p[3], D2, P), q[3], P); // T1 2d T2
        uint256 d = mulmod(mulmod(p[2], 2, P), q[2], P); // Z1 2 Z2
        uint256 e = addmod(b, P - a, P);
        uint256 f = addmod(d, P - c, P);
        uint256 g = addmod(d, c, P);
        uint256 hh = addmod(b, a, P);
        p[0] = mulmod(e, f, P);
        p[1] = mulmod(g, hh, P);
        p[2] = mulmod(f, g, P);
        p[3] = mulmod(e, hh, P);
    }

    /// @dev base^exponent mod P through the modexp precompile.
    function _pow(uint256 base, uint256 exponent) private view returns (uint256 r) {
        bool ok;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, 32)
            mstore(add(m, 0x20), 32)
            mstore(add(m, 0x40), 32)
            mstore(add(m, 0x60), base)
            mstore(add(m, 0x80), exponent)
            mstore(add(m, 0xa0), P)
            ok := staticcall(gas(), 0x05, m, 0xc0, m, 0x20)
            r := mload(m)
        }
        require(ok);
    }

    /// @dev Reverses the byte order of a word (little-endian bytes <-> number).
    function _le(uint256 v) private pure returns (uint256) {
        v = (v & 0xff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00) >> 8
            | (v & 0x00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff) << 8;
        v = (v & 0xffff0000ffff0000ffff0000ffff0000ffff0000ffff0000ffff0000ffff0000) >> 16
            | (v & 0x0000ffff0000ffff0000ffff0000ffff0000ffff0000ffff0000ffff0000ffff) << 16;
        v = (v & 0xffffffff00000000ffffffff00000000ffffffff00000000ffffffff00000000) >> 32
            | (v & 0x00000000ffffffff00000000ffffffff00000000ffffffff00000000ffffffff) << 32;
        v = (v & 0xffffffffffffffff0000000000000000ffffffffffffffff0000000000000000) >> 64
            | (v & 0x0000000000000000ffffffffffffffff0000000000000000ffffffffffffffff) << 64;
        return v >> 128 | v << 128;
    }
}
