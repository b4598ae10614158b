// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Fixture} from "./Fixture.sol";

/// @notice Shared setup of the JobEscrow tests: a well-staked submitter (node 0, 50 ether) and five 2-ether nodes
///         (1..5), all GPU_A with 24 GB.
abstract contract JobEscrowFixture is Fixture {
    address internal sub;
    uint256 internal constant FEE = 10 ether;

    function setUp() public {
        deploy();
        sub = registerNode(0, GPU_A, 24, 50 ether);
        registerMany(1, 5, GPU_A, 24, 2 ether);
    }
}
