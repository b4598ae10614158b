// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Fixture} from "./utils/Fixture.sol";
import {JobEscrow} from "../src/JobEscrow.sol";
import {JobEscrowBase} from "../src/escrow/JobEscrowBase.sol";
import {NodeRegistry} from "../src/NodeRegistry.sol";
import {UncheckedPeerIdRegistry} from "./utils/UncheckedPeerIdRegistry.sol";

/// @notice The task value: fee * 1000 / (overheadMs + microJobs * msPerMicroJob) wei per second, from network
///         parameters only. The spec's pricing table (10 CNX / 1 image / 20 s -> 0.5; 15 / 2 / 40 s -> 0.375; with
///         30 s overhead -> 0.2 and 0.214), with one image = one MicroJob of 20 s.
contract PricingTest is Fixture {
    function setUp() public {
        deploy();
    }

    function withPricing(uint32 overheadMs, uint32 msPerMicroJob) internal {
        JobEscrowBase.Params memory p = escrowParams();
        p.overheadMs = overheadMs;
        p.msPerMicroJob = msPerMicroJob;
        registry = new UncheckedPeerIdRegistry(registryParams());
        escrow = new JobEscrow(registry, p);
        registry.setEscrow(address(escrow));
    }

    /// A job of `microJobs` MicroJobs (one MacroJob) paying `fee`; checks the event, the view and the quote agree.
    function valueOf(uint256 fee, uint32 microJobs) internal returns (uint256 value) {
        JobEscrowBase.CreateJobParams memory p = jobParams(1, microJobs, 3);
        value = escrow.quoteTaskValue(fee, microJobs);
        vm.expectEmit(false, true, false, true, address(escrow));
        emit JobEscrowBase.JobCreated(bytes32(0), creator, p.specCid, fee, p.jobRoot, p.deadline, value);
        bytes32 id = createJob(p, fee);
        assertEq(escrow.taskValue(id), value);
    }

    function test_pricingTableWithoutOverhead() public {
        withPricing(0, 20_000);
        (uint32 overheadMs, uint32 msPerMicroJob) = escrow.pricing();
        assertEq(overheadMs, 0);
        assertEq(msPerMicroJob, 20_000);
        assertEq(valueOf(10 ether, 1), 0.5 ether); // 10 CNX / 1 image / 20 s
        assertEq(valueOf(15 ether, 2), 0.375 ether); // 15 CNX / 2 images / 40 s
    }

    function test_pricingTableWithOverhead() public {
        withPricing(30_000, 20_000);
        assertEq(valueOf(10 ether, 1), 0.2 ether); // 10 CNX / 50 s
        uint256 v = valueOf(15 ether, 2); // 15 CNX / 70 s = 0.214285714285714285...
        assertEq(v, 214_285_714_285_714_285);
        assertEq(v / 1e15, 214); // 0.214
    }

    /// The creator's run-time hint sizes the commit window only: it cannot raise its job's value.
    function test_creatorHintDoesNotChangeTheValue() public {
        JobEscrowBase.CreateJobParams memory a = jobParams(4, 16, 3);
        JobEscrowBase.CreateJobParams memory b = jobParams(4, 16, 3);
        a.secondsPerMicroJob = 1;
        b.secondsPerMicroJob = 3600;
        bytes32 ia = createJob(a, 1 ether);
        bytes32 ib = createJob(b, 1 ether);
        assertEq(escrow.taskValue(ia), escrow.taskValue(ib));
        // the Fixture's network: 30 s overhead, 1 s per MicroJob; 64 MicroJobs -> 94 s
        assertEq(escrow.taskValue(ia), uint256(1 ether) * 1000 / 94_000);
    }

    function test_quoteRejectsAnEmptyJob() public {
        vm.expectRevert(JobEscrowBase.InvalidParams.selector);
        escrow.quoteTaskValue(1 ether, 0);
    }

    function test_constructorRejectsZeroTimePerMicroJob() public {
        JobEscrowBase.Params memory p = escrowParams();
        p.msPerMicroJob = 0;
        vm.expectRevert(JobEscrowBase.InvalidParams.selector);
        new JobEscrow(registry, p);
    }

    function testFuzz_valueIsTheFormula(uint96 fee, uint32 overheadMs, uint32 msPerMicroJob, uint32 microJobs) public {
        msPerMicroJob = uint32(bound(msPerMicroJob, 1, type(uint32).max));
        microJobs = uint32(bound(microJobs, 1, type(uint32).max));
        withPricing(overheadMs, msPerMicroJob);
        uint256 expected = uint256(fee) * 1000 / (uint256(overheadMs) + uint256(microJobs) * msPerMicroJob);
        assertEq(escrow.quoteTaskValue(fee, microJobs), expected);
    }
}
