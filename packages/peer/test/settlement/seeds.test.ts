import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { ZeroHash } from 'ethers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { drawVerifiers, ensureSeedCommitted, revealSeed, seedAt, seedHash } from '../../src/settlement/index.js'
import { waitForSample } from '../../src/settlement/phases.js'
import { fakeSubmission } from './fake-submission.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { TestChain } from '@jobmesh/testkit/anvil'

const STAKE = 10n ** 18n
const FEE = 10n ** 15n
const OPTIONS = { pollMs: 50, phaseTimeoutMs: 60_000 }

describe('verifier seeds on a real chain: derived from the wallet, revealed on assignment, a silent one closed out', () => {
  let chain: TestChain
  let chains: ChainClient[]

  beforeEach(async () => {
    chain = await startChain({ accounts: 5, blockTime: 0.1 })
    chains = chain.clients
    await registerNodes(chains.slice(1), STAKE)
  })

  afterEach(async () => {
    await chain.stop()
  })

  it('commits a seed once, and a restarted node (a new client on the same wallet) finds the same seeds', async () => {
    const node = chains[2]
    expect((await node.seedCommit()).hash).toBe(ZeroHash)
    await ensureSeedCommitted(node, OPTIONS)
    const first = await node.seedCommit()
    expect(first.hash).toBe(seedHash(await seedAt(node, first.index)))
    await ensureSeedCommitted(node, OPTIONS)
    expect(await node.seedCommit()).toEqual(first) // nothing sent the second time

    const restarted = chain.client(2)
    try {
      expect(await seedAt(restarted, first.index)).toBe(await seedAt(node, first.index))
      await ensureSeedCommitted(restarted, OPTIONS)
      expect(await restarted.seedCommit()).toEqual(first)
    } finally {
      restarted.provider.destroy()
    }
    // another wallet has other seeds; nobody else can compute them
    expect(await seedAt(chains[3], 0)).not.toBe(await seedAt(node, 0))
  }, 60_000)

  it('the drawn verifiers reveal their seeds; a silent one is closed out after the window and slashed the bond', async () => {
    for (let i = 1; i < 5; i++) await ensureSeedCommitted(chains[i], OPTIONS)
    const submitter = chains[1]
    const jobId = await fakeSubmission(chains[0], submitter, { tag: 'seeds', fee: FEE })
    await drawVerifiers({ chain: submitter }, jobId, OPTIONS)
    const drawn = (await submitter.job(jobId))
    expect(drawn.drawn).toBe(true)
    expect(drawn.entropySet).toBe(false)
    const addresses = await Promise.all(chains.map(async c => (await c.address()).toLowerCase()))
    const [v0, v1, v2] = (await submitter.verifiers(jobId)).map(v => chains[addresses.indexOf(v.node.toLowerCase())])

    expect(await revealSeed(v0, jobId, OPTIONS)).toBe(true)
    expect(await revealSeed(v0, jobId, OPTIONS)).toBe(false) // already revealed: nothing sent
    const after = await v0.seedCommit()
    expect(after.hash).toBe(seedHash(await seedAt(v0, after.index))) // its next seed is committed
    expect((await submitter.job(jobId)).entropySet).toBe(false)
    expect(await revealSeed(v2, jobId, OPTIONS)).toBe(true)
    expect((await submitter.job(jobId)).entropySet).toBe(false)

    // v1 stays silent: the submitter's wait for the sample closes the window once it is over
    const stake1 = (await v1.nodeInfo()).stake
    const fixed = await waitForSample(submitter, jobId, OPTIONS)
    expect(fixed.entropySet).toBe(true)
    expect(await submitter.blockNumber()).toBeGreaterThan(fixed.seedDeadline)
    const missed = await submitter.findEvents({ names: ['SeedMissed'], topic1: jobId })
    expect(missed.map(e => String(e.args.verifier).toLowerCase())).toEqual([(await v1.address()).toLowerCase()])
    const bond = FEE * 2n
    expect((await v1.nodeInfo()).stake).toBe(stake1 - bond)
    const silent = (await v1.address()).toLowerCase()
    for (const v of await v0.verifiers(jobId)) expect(v.seeded).toBe(v.node.toLowerCase() !== silent)
    // the registry's record of it, as `jobmesh start` names it when it tops the stake up: the job and the reason
    expect(await submitter.nodeSlashes(silent)).toEqual([expect.objectContaining({ amount: bond, stakeLeft: stake1 - bond, reason: 'seed-missed', jobId: jobId.toLowerCase() })])
    expect(await submitter.nodeSlashes(await v0.address())).toEqual([])
  }, 90_000)
})
