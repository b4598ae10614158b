// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {JobEscrowRounds} from "./JobEscrowRounds.sol";

/// @title JobEscrowSeeds
/// @notice Verifier seeds: the sample of a round is keccak256(drawEntropy, mix), mix the XOR of keccak256(jobId, seed)
///         over the drawn verifiers' revealed seeds (so the order of the reveals does not matter), each seed the
///         preimage of a commitment its node made before it was drawn. The block producer that set drawEntropy does
///         not know the seeds, and no verifier can choose its own; so nobody can read or grind the sample before the
///         last seed is revealed, unless every drawn verifier colludes (docs/settlement.md, "Re-rolled sample").
///         A verifier that withholds its seed (the last revealer choosing between two samples) is slashed the bond
///         and may not vote. Runs in the settlement module (delegatecall).
abstract contract JobEscrowSeeds is JobEscrowRounds {
    error NotDelegated();

    /// @dev The module's own address, fixed at deployment: code running at this address was called directly.
    address private immutable _self = address(this);

    /// @dev The module's functions run only by delegatecall from JobEscrow, on its storage and balance.
    modifier onlyDelegated() {
        _checkDelegated();
        _;
    }

    function _checkDelegated() private view {
        if (address(this) == _self) revert NotDelegated();
    }

    /// @notice Commits the caller's next seed: `hash` = keccak256(abi.encode(seed)), `index` the caller's own label
    ///         of that seed. It counts for draws in later blocks only; a node drawn before it commits again reveals
    ///         the seed it had committed.
    function commitSeed(bytes32 hash, uint32 index) external onlyDelegated {
        seedCommits[msg.sender] = SeedCommit({hash: hash, blockNumber: uint40(block.number), index: index});
        emit SeedCommitted(msg.sender, hash, index);
    }

    /// @notice A drawn verifier reveals its committed seed within SEED_WINDOW_BLOCKS of the draw and commits its
    ///         next one (`nextHash`, index + 1). The k-th seed fixes the sample.
    function revealSeed(bytes32 jobId, bytes32 seed, bytes32 nextHash) external onlyDelegated {
        Job storage j = _job(jobId);
        if (j.status != Status.Submitted) revert WrongStatus(jobId, j.status);
        uint256 i = _verifierIndex(jobId, j, msg.sender);
        if (j.assigned != j.k) revert VerifiersIncomplete();
        Verifier storage v = _verifiers[jobId][i];
        if (v.seeded) revert AlreadySeeded();
        if (j.entropySet || block.number > j.seedDeadline) revert SeedWindowClosed();
        SeedCommit storage sc = seedCommits[msg.sender];
        if (sc.hash != keccak256(abi.encode(seed)) || sc.blockNumber >= j.seedDeadline - SEED_WINDOW_BLOCKS) {
            revert BadSeed();
        }
        uint32 next = sc.index + 1;
        seedCommits[msg.sender] = SeedCommit({hash: nextHash, blockNumber: uint40(block.number), index: next});
        emit SeedCommitted(msg.sender, nextHash, next);
        v.seeded = true;
        // order-independent: the last revealers cannot pick a sample by the order they reveal in. Not the seed's
        // commitment keccak256(abi.encode(seed)): that one is public before the reveal.
        j.sampleEntropy ^= keccak256(abi.encode(jobId, seed));
        emit SeedRevealed(jobId, msg.sender, seed);
        if (++j.seeds == j.k) _fixSample(jobId, j);
    }

    /// @notice After the seed window anyone fixes the sample from the seeds revealed so far; each verifier that
    ///         revealed none is slashed the bond (to the treasury). Idempotent once the sample is fixed.
    function closeSeeds(bytes32 jobId) external onlyDelegated {
        Job storage j = _job(jobId);
        if (j.status != Status.Submitted) revert WrongStatus(jobId, j.status);
        if (j.assigned != j.k) revert VerifiersIncomplete();
        if (j.entropySet) return;
        if (block.number <= j.seedDeadline) revert TooEarly(uint256(j.seedDeadline) + 1);
        _penaliseSeedless(jobId, j);
        _fixSample(jobId, j);
    }

    function _fixSample(bytes32 jobId, Job storage j) internal {
        bytes32 e = keccak256(abi.encode(j.drawEntropy, j.sampleEntropy));
        j.sampleEntropy = e;
        j.entropySet = true;
        emit SampleEntropySet(jobId, e);
    }

    /// @dev A verifier without a seed had the choice to withhold it; the bond (> what a second sample can be worth
    ///      to a dishonest submitter, docs/settlement.md) makes that choice cost more than it earns.
    function _penaliseSeedless(bytes32 jobId, Job storage j) internal {
        uint256 k = j.k;
        for (uint256 i; i < k; ++i) {
            Verifier storage v = _verifiers[jobId][i];
            if (v.seeded) continue;
            uint256 pen = registry.slash(v.node, _bond(j));
            credits[treasury] += pen;
            emit SeedMissed(jobId, v.node, pen);
        }
    }
}
