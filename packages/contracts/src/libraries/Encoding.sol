// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Encoding
/// @notice The agreed protocol encodings of docs/protocol.md (ids, Merkle leaves, validation sample, verifier hash,
///         commitment). Off-chain code must produce the same values.
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

    function resultLeaf(bytes32 micro, uint256 macroIndex, uint256 index, bytes32 outputHash)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(bytes.concat(keccak256(abi.encode(micro, macroIndex, index, outputHash))));
    }

    function payoutLeaf(address payee, uint256 amount) internal pure returns (bytes32) {
        return keccak256(bytes.concat(keccak256(abi.encode(payee, amount))));
    }

    function validationIndex(uint256 seed, uint256 m, bytes32 sampleEntropy, uint256 microJobsPerMacro)
        internal
        pure
        returns (uint256)
    {
        return uint256(keccak256(abi.encode(seed, m, sampleEntropy))) % microJobsPerMacro;
    }

    function verifierHash(bytes32[] memory outputHashes) internal pure returns (bytes32) {
        return keccak256(abi.encode(outputHashes));
    }

    function commitment(bytes32 vHash, bytes32 salt, address sender) internal pure returns (bytes32) {
        return keccak256(abi.encode(vHash, salt, sender));
    }
}
