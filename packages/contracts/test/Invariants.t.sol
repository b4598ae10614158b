// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Fixture} from "./utils/Fixture.sol";
import {NodeRegistry} from "../src/NodeRegistry.sol";
import {JobEscrow} from "../src/JobEscrow.sol";
import {JobEscrowBase} from "../src/escrow/JobEscrowBase.sol";

/// Drives random job lifecycles; keeps ghost accounting of every wei in and out of the escrow.
contract EscrowHandler is Fixture {
    bytes32[] public ids;
    mapping(bytes32 => uint256) public paidOut; // per job: claims + refund
    mapping(bytes32 => uint256) public feeOf;
    uint256 public deposits;
    uint256 public slashesIn;
    uint256 public outflows;
    address[] public everDrawn;
    address public outsider = address(0xDEAD);
    address payee = address(0xFEE);

    constructor(NodeRegistry r, JobEscrow e) {
        registry = r;
        escrow = e;
        vm.deal(creator, 1_000_000 ether);
    }

    receive() external payable {}

    function create(uint256 fee) external {
        fee = bound(fee, 1 ether, 50 ether);
        JobEscrowBase.CreateJobParams memory p = jobParams(1, 2, 3);
        p.deadline = uint40(block.timestamp + 1 hours);
        bytes32 id = createJob(p, fee);
        ids.push(id);
        feeOf[id] = fee;
        deposits += fee;
    }

    function pick(uint256 i) internal view returns (bytes32) {
        return ids.length == 0 ? bytes32(0) : ids[i % ids.length];
    }

    /// @dev mode 0: honest (released), 1: the submitter faked an output (rejected), 2: all verifiers silent
    function runLifecycle(uint256 i, uint8 mode) external {
        bytes32 id = pick(i);
        if (id == bytes32(0) || escrow.statusOf(id) != JobEscrowBase.Status.Open) return;
        if (block.timestamp > escrow.jobs(id).deadline) return;
        address sub = nodeAddr(i % 6);
        if (!registry.isActive(sub) || registry.nodeInfo(sub).stake < 1 ether + 2 * feeOf[id] + registry.lockedStake(sub)) return;
        Results memory truth = buildResults(id, 1, 2, "honest", one(payee));
        Results memory sent = truth;
        if (mode % 3 == 1) {
            sent = copyResults(truth);
            sent.outputs[0] = keccak256("fake");
            sent.outputs[1] = keccak256("fake");
            _rebuild(id, 2, sent);
        }
        submit(id, sub, sent.root);
        vm.roll(block.number + 2);
        escrow.selectVerifiers(id);
        JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
        if (vs.length < 3) return;
        for (uint256 x; x < vs.length; ++x) everDrawn.push(vs[x].node);
        Results memory silent;
        Results[] memory v = mode % 3 == 2 ? views3(silent, silent, silent) : views3(truth, truth, truth);
        commitViews(id, v, noBlame(3));
        vm.roll(block.number + 1);
        prove(id, sent);
        revealViews(id, sent, v, noBlame(3));
        JobEscrowBase.Job memory j = escrow.jobs(id);
        if (j.reveals < 3) vm.roll(j.revealDeadline + 1);
        uint256 b0 = address(escrow).balance;
        escrow.settle(id);
        if (address(escrow).balance > b0) slashesIn += address(escrow).balance - b0;
        if (escrow.statusOf(id) == JobEscrowBase.Status.Released) released[id] = truth;
    }

    mapping(bytes32 => Results) internal released;

    function claimAll(uint256 i) external {
        bytes32 id = pick(i);
        if (id == bytes32(0) || escrow.statusOf(id) != JobEscrowBase.Status.Released) return;
        if (escrow.isClaimed(id, 0)) return;
        uint256 b0 = address(escrow).balance;
        claimAll(id, released[id], 2);
        paidOut[id] += b0 - address(escrow).balance;
        outflows += b0 - address(escrow).balance;
    }

    function refundOne(uint256 i) external {
        bytes32 id = pick(i);
        if (id == bytes32(0)) return;
        JobEscrowBase.Status s = escrow.statusOf(id);
        if (s != JobEscrowBase.Status.Open) return;
        vm.warp(block.timestamp + 2 hours);
        escrow.refund(id);
        paidOut[id] += feeOf[id];
        outflows += feeOf[id];
    }

    function withdrawCredits(uint256 i) external {
        address a = i % 8 == 7 ? treasury : i % 8 == 6 ? creator : nodeAddr(i % 6);
        uint256 c = escrow.credits(a);
        if (c == 0) return;
        vm.prank(a);
        escrow.withdrawCredit();
        outflows += c;
    }

    function idsLength() external view returns (uint256) {
        return ids.length;
    }

    function everDrawnLength() external view returns (uint256) {
        return everDrawn.length;
    }

}

contract InvariantsTest is Fixture {
    EscrowHandler h;

    function setUp() public {
        deploy();
        h = new EscrowHandler(registry, escrow);
        for (uint256 i; i < 6; ++i) registerNode(i, GPU_A, 24, 200 ether);
        targetContract(address(h));
    }

    /// escrow balance == deposits + slashes received - claims - refunds - credits withdrawn
    function invariant_escrowBalanceAccounting() public view {
        assertEq(address(escrow).balance, h.deposits() + h.slashesIn() - h.outflows());
    }

    /// a job is paid out at most its fee (processor pool claims + refund never exceed it; never both)
    function invariant_jobPaidAtMostOnce() public view {
        uint256 n = h.idsLength();
        for (uint256 i; i < n; ++i) {
            bytes32 id = h.ids(i);
            assertLe(h.paidOut(id), h.feeOf(id), "job paid more than its fee");
        }
    }

    /// the trees' idle weight is the sum of the eligible nodes' weights (busy nodes are out of the trees)
    function invariant_idleWeightMatchesNodes() public view {
        uint256 sum;
        for (uint256 i; i < 6; ++i) {
            address a = nodeAddr(i);
            uint256 w = registry.weightOf(a);
            if (!registry.isEligible(a)) assertEq(w, 0, "ineligible node with weight");
            sum += w;
        }
        assertEq(registry.totalWeight(), sum, "total != sum of eligible weights");
        assertEq(registry.groupWeight(GPU_A), sum, "group total != sum of eligible weights");
    }

    /// only registered nodes are ever drawn; the outsider never is
    function invariant_onlyRegisteredDrawn() public view {
        uint256 n = h.everDrawnLength();
        for (uint256 i; i < n; ++i) {
            address a = h.everDrawn(i);
            assertTrue(registry.isRegistered(a), "unregistered node drawn");
            assertTrue(a != h.outsider(), "outsider drawn");
        }
    }
}
