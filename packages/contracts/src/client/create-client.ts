import { balance } from '../actions/balance.js'
import { chainTime } from '../actions/chain-time.js'
import { claim } from '../actions/escrow/claim.js'
import { closeSeeds } from '../actions/escrow/close-seeds.js'
import { commitResults } from '../actions/escrow/commit-results.js'
import { commitSeed } from '../actions/escrow/commit-seed.js'
import { commitVerification } from '../actions/escrow/commit-verification.js'
import { createJob } from '../actions/escrow/create-job.js'
import { credits } from '../actions/escrow/credits.js'
import { hasJoined } from '../actions/escrow/has-joined.js'
import { isClaimed } from '../actions/escrow/is-claimed.js'
import { joinJob } from '../actions/escrow/join-job.js'
import { maxPayees } from '../actions/escrow/max-payees.js'
import { jobStatus } from '../actions/escrow/job-status.js'
import { job } from '../actions/escrow/job.js'
import { commitTimes } from '../actions/escrow/commit-times.js'
import { jobLimits } from '../actions/escrow/job-limits.js'
import { pricing } from '../actions/escrow/pricing.js'
import { processorPool } from '../actions/escrow/processor-pool.js'
import { proveSample } from '../actions/escrow/prove-sample.js'
import { refund } from '../actions/escrow/refund.js'
import { revealSeed } from '../actions/escrow/reveal-seed.js'
import { revealVerification } from '../actions/escrow/reveal-verification.js'
import { seedCommit } from '../actions/escrow/seed-commit.js'
import { selectVerifiers } from '../actions/escrow/select-verifiers.js'
import { settle } from '../actions/escrow/settle.js'
import { submitResults } from '../actions/escrow/submit-results.js'
import { sweep } from '../actions/escrow/sweep.js'
import { validationIndex } from '../actions/escrow/validation-index.js'
import { verifierShare } from '../actions/escrow/verifier-share.js'
import { verifiers } from '../actions/escrow/verifiers.js'
import { withdrawCredit } from '../actions/escrow/withdraw-credit.js'
import { findEvents } from '../actions/events/find-events.js'
import { jobCreated, jobsCreatedBy } from '../actions/events/job-created.js'
import { rejectedCulprits } from '../actions/events/rejected-culprits.js'
import { nodeSlashes } from '../actions/events/node-slashes.js'
import { releasedBlock } from '../actions/events/released-block.js'
import { submittedManifests } from '../actions/events/submitted-manifests.js'
import { waitForBlock } from '../actions/events/wait-for-block.js'
import { watchEvents } from '../actions/events/watch-events.js'
import { claimIncentive } from '../actions/incentive/claim-incentive.js'
import { fundIncentive } from '../actions/incentive/fund-incentive.js'
import { incentiveAccount } from '../actions/incentive/incentive-account.js'
import { pokeIncentive } from '../actions/incentive/poke-incentive.js'
import { announceModel } from '../actions/models/announce-model.js'
import { dropModel } from '../actions/models/drop-model.js'
import { modelHolders, modelHolding } from '../actions/models/model-holding.js'
import { modelPrompts } from '../actions/models/model-prompts.js'
import { modelRecords } from '../actions/models/model-records.js'
import { promptModel } from '../actions/models/prompt-model.js'
import { activeNodes } from '../actions/registry/active-nodes.js'
import { nodeGrade } from '../actions/registry/node-grade.js'
import { freeStake } from '../actions/registry/free-stake.js'
import { submissionBond } from '../actions/escrow/submission-bond.js'
import { ensureRegistered } from '../actions/registry/ensure-registered.js'
import { checkRegistration } from '../actions/registry/check-registration.js'
import { nodeInfo } from '../actions/registry/node-info.js'
import { answerProbe } from '../actions/registry/answer-probe.js'
import { probeNext } from '../actions/registry/probe-next.js'
import { probeOf } from '../actions/registry/probe-of.js'
import { qosScores } from '../actions/registry/qos-scores.js'
import { resume } from '../actions/registry/resume.js'
import { pause } from '../actions/registry/pause.js'
import { requestExit } from '../actions/registry/request-exit.js'
import { withdrawStake } from '../actions/registry/withdraw-stake.js'
import { setCommitTimeout } from '../actions/registry/set-commit-timeout.js'
import { peerAddress } from '../actions/registry/peer-address.js'
import { createChainContext } from './context.js'
import type { ChainClient, ChainClientComponents, ChainClientInit } from './client-types.js'

/**
 * Creates a chain client over a deployment: each method is one action of `src/actions/` (one per file, viem style)
 * bound to the client's shared context (context.ts: provider, signer, contracts, timeouts, the nonce-keeping sender).
 *
 * @example
 * ```ts
 * const chain = createChainClient({ rpcUrl, signer: new Wallet(key), deployment })
 * await chain.ensureRegistered({ peerId: node.peerId.toString(), privateKey: node.privateKey, gpuModel: 'RTX 4090', vramGb: 24, stake: 10n ** 16n })
 * for await (const e of chain.watchEvents({ names: ['VerifierAssigned'], topic2: await chain.address(), signal })) { ... }
 * ```
 */
export function createChainClient (components: ChainClientComponents, init: ChainClientInit = {}): ChainClient {
  const c = createChainContext(components, init)
  return {
    provider: c.provider,
    contracts: c.contracts,
    deployment: components.deployment,
    address: c.address,
    signMessage: c.signMessage,
    blockNumber: c.blockNumber,
    chainTime: async (options) => chainTime(c, options),
    balance: async (address, options) => balance(c, address, options),
    waitForBlock: async (n, options) => waitForBlock(c, n, options),
    ensureRegistered: async (input, options) => ensureRegistered(c, input, options),
    checkRegistration: async (input, options) => checkRegistration(c, input, options),
    nodeInfo: async (address, options) => nodeInfo(c, address, options),
    peerAddress: async (peerId, options) => peerAddress(c, peerId, options),
    activeNodes: async (options) => activeNodes(c, options),
    nodeGrade: async (address, options) => nodeGrade(c, address, options),
    freeStake: async (address, options) => freeStake(c, address, options),
    submissionBond: async (fee, options) => submissionBond(c, fee, options),
    qosScores: async (address, options) => qosScores(c, address, options),
    probeOf: async (address, options) => probeOf(c, address, options),
    probeNext: async (maxScan, options) => probeNext(c, maxScan, options),
    answerProbe: async (options) => answerProbe(c, options),
    resume: async (options) => resume(c, options),
    pause: async (options) => pause(c, options),
    requestExit: async (options) => requestExit(c, options),
    withdrawStake: async (options) => withdrawStake(c, options),
    setCommitTimeout: async (pct, options) => setCommitTimeout(c, pct, options),
    incentiveAccount: async (address, options) => incentiveAccount(c, address, options),
    pokeIncentive: async (node, options) => pokeIncentive(c, node, options),
    claimIncentive: async (options) => claimIncentive(c, options),
    fundIncentive: async (amountWei, options) => fundIncentive(c, amountWei, options),
    announceModel: async (modelId, options) => announceModel(c, modelId, options),
    dropModel: async (modelId, options) => dropModel(c, modelId, options),
    promptModel: async (modelId, nodes, options) => promptModel(c, modelId, nodes, options),
    modelHolding: async (modelId, address, options) => modelHolding(c, modelId, address, options),
    modelHolders: async (modelId, page, options) => modelHolders(c, modelId, page, options),
    modelPrompts: async (node, range, options) => modelPrompts(c, node, range, options),
    modelRecords: async (node, options) => modelRecords(c, node, options),
    createJob: async (input, fee, options) => createJob(c, input, fee, options),
    commitResults: async (jobId, commitment, options) => commitResults(c, jobId, commitment, options),
    submitResults: async (jobId, input, options) => submitResults(c, jobId, input, options),
    selectVerifiers: async (jobId, options) => selectVerifiers(c, jobId, options),
    commitSeed: async (hash, index, options) => commitSeed(c, hash, index, options),
    revealSeed: async (jobId, seed, nextHash, options) => revealSeed(c, jobId, seed, nextHash, options),
    closeSeeds: async (jobId, options) => closeSeeds(c, jobId, options),
    commitVerification: async (jobId, commitment, options) => commitVerification(c, jobId, commitment, options),
    revealVerification: async (jobId, input, options) => revealVerification(c, jobId, input, options),
    proveSample: async (jobId, leaves, proofs, options) => proveSample(c, jobId, leaves, proofs, options),
    settle: async (jobId, options) => settle(c, jobId, options),
    claim: async (jobId, leaves, proofs, options) => claim(c, jobId, leaves, proofs, options),
    sweep: async (jobId, options) => sweep(c, jobId, options),
    refund: async (jobId, options) => refund(c, jobId, options),
    joinJob: async (jobId, options) => joinJob(c, jobId, options),
    withdrawCredit: async (options) => withdrawCredit(c, options),
    credits: async (address, options) => credits(c, address, options),
    seedCommit: async (address, options) => seedCommit(c, address, options),
    isClaimed: async (jobId, position, options) => isClaimed(c, jobId, position, options),
    hasJoined: async (jobId, address, options) => hasJoined(c, jobId, address, options),
    maxPayees: async (options) => maxPayees(c, options),
    verifierShare: async (jobId, options) => verifierShare(c, jobId, options),
    jobStatus: async (jobId, options) => jobStatus(c, jobId, options),
    job: async (jobId, options) => job(c, jobId, options),
    verifiers: async (jobId, options) => verifiers(c, jobId, options),
    validationIndex: async (jobId, macroIndex, options) => validationIndex(c, jobId, macroIndex, options),
    processorPool: async (jobId, options) => processorPool(c, jobId, options),
    pricing: async (options) => pricing(c, options),
    jobLimits: async (options) => jobLimits(c, options),
    commitTimes: async (options) => commitTimes(c, options),
    findEvents: async (filter, options) => findEvents(c, filter, options),
    jobCreated: async (jobId, options) => jobCreated(c, jobId, options),
    jobsCreatedBy: async (creator, options) => jobsCreatedBy(c, creator, options),
    submittedManifests: async (jobId, resultRoot, options) => submittedManifests(c, jobId, resultRoot, options),
    rejectedCulprits: async (jobId, options) => rejectedCulprits(c, jobId, options),
    nodeSlashes: async (node, options) => nodeSlashes(c, node, options),
    releasedBlock: async (jobId, options) => releasedBlock(c, jobId, options),
    watchEvents: (options) => watchEvents(c, options)
  }
}
