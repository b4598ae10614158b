// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Fixture} from "../utils/Fixture.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// Found by the seventh audit (2026-12-04). A node's GPU model is its operator's word (`register` takes any non-zero
/// bytes32). For a job with identical hardware and no GPU model, the draw picked its first verifier by weight over
/// every model and drew the rest within that verifier's model (NodeRegistryDraw, `m == 0 && r.identical`). So a
/// coalition that registered k nodes under a model nobody else uses held all k seats whenever that one pick landed on
/// one of them: with probability its share w of the draw weight, whatever k the creator asked for. In the audit's
/// run (30 honest nodes at 2 ETH, 7 coalition nodes at the 1 ETH minimum under a private model, w = 10.4 %, k = 7)
/// the coalition held every seat of 7 of 60 identical-hardware jobs and a majority of 0 of 60 plain ones; its 6th
/// try released pure garbage that paid the submitter every leaf, and the coalition took the whole 1 ETH fee (the
/// processor pool to its submitter, the 7 verifier shares to its nodes). Now `createJob` refuses identical hardware
/// without a GPU model (`IdenticalHardwareNeedsModel`): the seats are drawn within the model the creator names, where
/// the coalition is an ordinary minority. The first test fails on the escrow before the change.
contract IdenticalHardwareCaptureTest is Fixture {
    bytes32 internal constant PRIVATE_GPU = keccak256("ATTACKER-GPU");
    uint256 internal constant FEE = 1 ether;
    uint8 internal constant K = 7;
    address[] internal coalition;
    address internal submitter;

    function setUp() public {
        deploy();
        registerMany(1, 30, GPU_A, 24, 2 ether);
        for (uint256 i; i < K; ++i) coalition.push(registerNode(100 + i, PRIVATE_GPU, 24, 1 ether));
        submitter = registerNode(200, GPU_A, 24, 5 ether);
    }

    function _params(bytes32 gpuModel, uint256 nonce) internal returns (JobEscrowBase.CreateJobParams memory p) {
        p = jobParams(2, 4, K);
        p.nonce = 10_000 + nonce;
        p.identicalHardware = true;
        p.gpuModel = gpuModel;
    }

    function test_anIdenticalHardwareJobWithoutAModelIsRefused() public {
        JobEscrowBase.CreateJobParams memory p = _params(bytes32(0), 0);
        vm.expectRevert(JobEscrowBase.IdenticalHardwareNeedsModel.selector);
        escrow.createJob{value: FEE}(p);
    }

    /// Named by the creator, the model decides the group: the coalition's private model gets no seat of 60 jobs.
    function test_aModelOfItsOwnGetsTheCoalitionNoSeat() public {
        uint256 drawn;
        for (uint256 t; t < 60; ++t) {
            // each job drawn from the same registry (its verifiers idle again)
            uint256 snap = vm.snapshotState();
            vm.roll(block.number + 3 + t);
            bytes32 id = createJob(_params(GPU_A, t), FEE);
            submit(id, submitter, keccak256(abi.encode("garbage", t)));
            vm.roll(block.number + 2);
            escrow.selectVerifiers(id);
            JobEscrowBase.Verifier[] memory vs = escrow.verifiersOf(id);
            if (vs.length == K) ++drawn;
            for (uint256 i; i < vs.length; ++i) {
                (bytes32 model,) = registry.nodeHardware(vs[i].node);
                assertEq(model, GPU_A, "every seat in the creator's model");
                for (uint256 c; c < K; ++c) assertTrue(vs[i].node != coalition[c], "no coalition seat");
            }
            vm.revertToState(snap);
        }
        assertGt(drawn, 0, "the jobs were drawn");
    }
}
