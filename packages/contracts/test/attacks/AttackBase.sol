// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Fixture} from "../utils/Fixture.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// @notice Shared setup of the attack tests: honest nodes 1..6 (processors, finalizer, verifiers) and a well-staked
///         attacker (node 0). Each attack test attempts the attack and asserts it fails: it reverts, or the attacker
///         ends poorer than by honest play.
abstract contract AttackBase is Fixture {
    uint256 internal constant FEE = 1 ether;
    address internal attacker;
    address internal finalizer;
    address internal procA = address(0xA11CE);
    address internal procB = address(0xB0B);

    function setUp() public virtual {
        deploy();
        attacker = registerNode(0, GPU_A, 24, 20 ether);
        finalizer = registerNode(1, GPU_A, 24, 20 ether);
        registerMany(2, 5, GPU_A, 24, 2 ether);
    }

    function newJob(uint32 macroJobs, uint32 per, uint8 samples) internal returns (bytes32 id) {
        JobEscrowBase.CreateJobParams memory p = jobParams(macroJobs, per, 3);
        p.samples = samples;
        id = createJob(p, FEE);
    }

    function honestResults(bytes32 id, uint32 macroJobs, uint32 per) internal pure returns (Results memory) {
        return buildResults(id, macroJobs, per, "honest", two(address(0xA11CE), address(0xB0B)));
    }

    function status(bytes32 id) internal view returns (uint256) {
        return uint256(escrow.statusOf(id));
    }

    function stakeOf(address a) internal view returns (uint256) {
        return registry.nodeInfo(a).stake;
    }

    /// @notice Whether the fixed sample of `id`'s round holds the MicroJob at global position `pos`.
    function sampleHits(bytes32 id, uint256 pos) internal view returns (bool) {
        uint256[] memory sampled = samplePositions(id);
        for (uint256 i; i < sampled.length; ++i) if (sampled[i] == pos) return true;
        return false;
    }

    /// @notice A job of k verifiers whose first round's sample catches the attacker's fake of MicroJob 0 (its leaf
    ///         paid to the attacker, the submitter): jobs are created, submitted and drawn, each from its own snapshot,
    ///         until one's sample holds position 0. `nonceBase` keeps the job ids of different tests apart.
    function caughtFakeRound(uint32 macroJobs, uint32 per, uint8 k, uint256 nonceBase)
        internal returns (bytes32 id, Results memory honest, Results memory fake)
    {
        for (uint256 n; n < 100; ++n) {
            uint256 snap = vm.snapshotState();
            vm.roll(block.number + 1 + n);
            JobEscrowBase.CreateJobParams memory p = jobParams(macroJobs, per, k);
            p.nonce = nonceBase + n;
            id = createJob(p, FEE);
            honest = honestResults(id, macroJobs, per);
            fake = copyResults(honest);
            fake.outputs[0] = keccak256("fake");
            fake.payees[0] = attacker;
            _rebuild(id, per, fake);
            submit(id, attacker, fake.root);
            select(id);
            if (sampleHits(id, 0)) return (id, honest, fake);
            vm.revertToState(snap);
        }
        revert("no round whose sample catches the fake");
    }
}
