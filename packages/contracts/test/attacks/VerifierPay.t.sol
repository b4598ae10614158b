// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AttackBase} from "./AttackBase.sol";
import {JobEscrowBase} from "../../src/escrow/JobEscrowBase.sol";

/// Attack 7: verifiers lose money honestly (re-running 37.5 % of the job for 20 % of the fee) and the commit window
/// ignores the re-run time.
contract VerifierPayTest is AttackBase {
    /// Every MicroJob run is paid alike: a verifier's share per re-run equals a processor's pay per MicroJob, at
    /// every verification level.
    function test_verifierReRunPaidLikeAProcessorRun() public {
        uint8[4] memory levels = [1, 2, 4, 8];
        for (uint256 x; x < 4; ++x) {
            bytes32 id = newJob(4, 8, levels[x]);
            uint256 perRun = escrow.processorPool(id) / 32;
            uint256 perReRun = escrow.verifierShare(id) / (4 * uint256(levels[x]));
            assertGe(perReRun + 1, perRun, "a re-run is paid at least as a run");
        }
    }

    /// The commit window grows with the sample's re-run time.
    function test_commitWindowCoversTheReRuns() public {
        JobEscrowBase.CreateJobParams memory p = jobParams(4, 8, 3);
        p.samples = 8;
        p.secondsPerMicroJob = 60; // 32 re-runs x 60 s = 960 blocks of 2 s
        bytes32 id = createJob(p, FEE);
        Results memory truth = honestResults(id, 4, 8);
        submit(id, finalizer, truth.root);
        select(id);
        assertEq(escrow.jobs(id).commitDeadline, block.number + escrow.SEED_WINDOW_BLOCKS() + 20 + 960);
    }
}
