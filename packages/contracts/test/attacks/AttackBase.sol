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
}
