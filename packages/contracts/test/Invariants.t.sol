// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Fixture} from "./utils/Fixture.sol";
import {NodeRegistry} from "../src/NodeRegistry.sol";
import {JobEscrow} from "../src/JobEscrow.sol";
import {Encoding} from "../src/libraries/Encoding.sol";

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
        JobEscrow.CreateJobParams memory p = jobParams(1, 1, 3);
        p.deadline = uint40(block.timestamp + 1 hours);
        bytes32 id = createJob(p, fee);
        ids.push(id);
        feeOf[id] = fee;
        deposits += fee;
    }

    function pick(uint256 i) internal view returns (bytes32) {
        return ids.length == 0 ? bytes32(0) : ids[i % ids.length];
    }

    function runLifecycle(uint256 i, bool honest) external {
        bytes32 id = pick(i);
        if (id == bytes32(0) || escrow.statusOf(id) != JobEscrow.Status.Open) return;
        if (block.timestamp > escrow.jobs(id).deadline) return;
        address sub = nodeAddr(i % 6);
        if (!registry.isActive(sub)) return;
        bytes32 out = keccak256(abi.encode("out", id));
        bytes32 resultRoot = Encoding.resultLeaf(Encoding.microId(12345, id, 0, 0), 0, 0, out);
        bytes32 payoutRoot = Encoding.payoutLeaf(payee, feeOf[id] * 8000 / 10000);
        submit(id, sub, resultRoot, payoutRoot);
        vm.roll(block.number + 2);
        escrow.selectVerifiers(id);
        JobEscrow.Verifier[] memory vs = escrow.verifiersOf(id);
        if (vs.length < 3) return;
        for (uint256 x; x < vs.length; ++x) everDrawn.push(vs[x].node);
        bytes32 vh = honest ? keccak256(abi.encode(_one(out))) : keccak256("lie");
        commitAll(id, same(vh, 3));
        JobEscrow.ResultLeaf[] memory leaves = new JobEscrow.ResultLeaf[](1);
        leaves[0] = JobEscrow.ResultLeaf(Encoding.microId(12345, id, 0, 0), 0, 0, out);
        escrow.proveSample(id, leaves, new bytes32[][](1));
        revealAll(id, same(vh, 3));
        uint256 b0 = address(escrow).balance;
        escrow.settle(id);
        if (address(escrow).balance > b0) slashesIn += address(escrow).balance - b0;
    }

    function claimAll(uint256 i) external {
        bytes32 id = pick(i);
        if (id == bytes32(0) || escrow.statusOf(id) != JobEscrow.Status.Released) return;
        uint256 amt = feeOf[id] * 8000 / 10000;
        if (escrow.claimed(id, Encoding.payoutLeaf(payee, amt))) return;
        escrow.claim(id, payee, amt, new bytes32[](0));
        paidOut[id] += amt;
        outflows += amt;
    }

    function refundOne(uint256 i) external {
        bytes32 id = pick(i);
        if (id == bytes32(0)) return;
        JobEscrow.Status s = escrow.statusOf(id);
        if (s != JobEscrow.Status.Open && s != JobEscrow.Status.Submitted) return;
        vm.warp(block.timestamp + 2 hours);
        escrow.refund(id);
        paidOut[id] += feeOf[id];
        outflows += feeOf[id];
    }

    function withdrawCredits(uint256 i) external {
        address a = i % 7 == 6 ? creator : nodeAddr(i % 6);
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

    function _one(bytes32 x) internal pure returns (bytes32[] memory a) {
        a = new bytes32[](1);
        a[0] = x;
    }
}

contract InvariantsTest is Fixture {
    EscrowHandler h;

    function setUp() public {
        deploy();
        h = new EscrowHandler(registry, escrow);
        for (uint256 i; i < 6; ++i) registerNode(i, GPU_A, 24, 5 ether);
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

    /// the trees' idle weight is the sum of the eligible nodes' weights (busy nodes stay in the trees, held aside)
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
