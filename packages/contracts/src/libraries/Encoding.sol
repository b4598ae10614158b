// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Encoding
/// @notice The agreed protocol encodings of docs/protocol.md (ids, Merkle leaves, validation sample, verifier digest,
///         commitments). Off-chain code must produce the same values.
library Encoding {
    function jobId(address creator, string memory specCid, uint256 nonce) internal pure returns (bytes32) {
        return keccak256(abi.encode(creator, specCid, nonce));
    }

    function macroId(uint256 seed, bytes32 job, uint256 m) internal pure returns (bytes32) {
        return keccak256(abi.encode(seed, job, m));
    }

    function microId(uint256 seed, bytes32 job, uint256 m, uint256 i) internal pure returns (bytes32) {
        return keccak256(abi.encode(seed, macroId(seed, job, m), i));
    }

    /// @notice Job-tree leaf (OpenZeppelin StandardMerkleTree double hash).
    function jobLeaf(bytes32 micro, uint256 macroIndex, uint256 index, uint256 start, uint256 end)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(bytes.concat(keccak256(abi.encode(micro, macroIndex, index, start, end))));
    }

    /// @notice Result-tree leaf: the MicroJob, the sha256 of its output and the wallet paid for it.
    function resultLeaf(bytes32 micro, uint256 macroIndex, uint256 index, bytes32 outputHash, address payee)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(bytes.concat(keccak256(abi.encode(micro, macroIndex, index, outputHash, payee))));
    }

    /// @notice Depth of the positional result tree of `n` leaves: ceil(log2 n).
    function treeDepth(uint256 n) internal pure returns (uint256 d) {
        while ((uint256(1) << d) < n) ++d;
    }

    /// @notice Whether `leaf` sits at position `pos` of the positional tree with `root` (parent = keccak256(left ++
    ///         right), unused positions are bytes32(0)); the proof must have exactly `depth` siblings.
    function verifyAt(bytes32[] calldata proof, bytes32 root, bytes32 leaf, uint256 pos, uint256 depth)
        internal
        pure
        returns (bool)
    {
        if (proof.length != depth || pos >> depth != 0) return false;
        bytes32 h = leaf;
        for (uint256 l; l < depth; ++l) {
            bytes32 s = proof[l];
            h = (pos >> l) & 1 == 0 ? keccak256(abi.encodePacked(h, s)) : keccak256(abi.encodePacked(s, h));
        }
        return h == root;
    }

    /// @notice Start of MacroJob m's validation window (its `samples` consecutive MicroJobs, modulo the count).
    function validationIndex(uint256 seed, uint256 m, bytes32 sampleEntropy, uint256 microJobsPerMacro)
        internal
        pure
        returns (uint256)
    {
        return uint256(keccak256(abi.encode(seed, m, sampleEntropy))) % microJobsPerMacro;
    }

    /// @notice The submitter's commitment to its results (bound to the round and the sender).
    function resultCommitment(bytes32 job, uint256 round, bytes32 resultRoot, string memory manifestCid, address sender)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(job, round, resultRoot, manifestCid, sender));
    }

    /// @notice A verifier's digest of the sample: keccak256(abi.encode(expected leaf hashes, execution digest)).
    function verifierHash(bytes32[] memory leafHashes, bytes32 executionDigest) internal pure returns (bytes32) {
        return keccak256(abi.encode(leafHashes, executionDigest));
    }

    /// @notice A verifier's commitment: its digest, whether it blames the processor, a salt, its address.
    function commitment(bytes32 vHash, bool processorBlame, bytes32 salt, address sender)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(vHash, processorBlame, salt, sender));
    }
}
