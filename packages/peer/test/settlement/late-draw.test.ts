import { connect } from '@jobmesh/contracts'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DRAW_BOUNTY_BPS, DRAW_GRACE_BLOCKS } from '../../src/protocol/index.js'
import { drawIfLate, drawVerifiers } from '../../src/settlement/index.js'
import { earningsCursor } from '../../src/observe/index.js'
import { fakeSubmission } from './fake-submission.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { TestChain } from '@jobmesh/testkit/anvil'

const STAKE = 10n ** 18n
const FEE = 10n ** 15n
const OPTIONS = { pollMs: 50, phaseTimeoutMs: 30_000 }

describe('the late draw: a watcher draws a submission its submitter sits on, and is paid from the bond', () => {
  let chain: TestChain
  let chains: ChainClient[]

  beforeEach(async () => {
    chain = await startChain({ accounts: 6, blockTime: 0.1 })
    chains = chain.clients
    await registerNodes(chains.slice(1), STAKE)
  })

  afterEach(async () => {
    await chain.stop()
  })

  /** A job created by account 0 and submitted by account 1 (results are not checked before the draw). */
  async function submitted (nonce: bigint): Promise<string> {
    return await fakeSubmission(chains[0], chains[1], { tag: `late-draw-${nonce}`, nonce, fee: FEE })
  }

  it('mirrors the escrow\'s grace and bounty constants', async () => {
    const { jobEscrow } = connect(chain.deployment, chains[0].provider)
    expect(Number(await jobEscrow.getFunction('DRAW_GRACE_BLOCKS').staticCall())).toBe(DRAW_GRACE_BLOCKS)
    expect(Number(await jobEscrow.getFunction('DRAW_BOUNTY_BPS').staticCall())).toBe(DRAW_BOUNTY_BPS)
  })

  it('after the grace the watcher draws, fixes the sample and is credited the bounty', async () => {
    const jobId = await submitted(1n)
    const stake0 = (await chains[1].nodeInfo()).stake
    const watcher = chains[2]
    expect(await drawIfLate({ chain: watcher }, jobId, { ...OPTIONS, random: () => 0 })).toBe(true)
    const job = await watcher.job(jobId)
    expect(job.drawn).toBe(true)
    expect(await watcher.blockNumber()).toBeGreaterThan(job.submitBlock + 1 + DRAW_GRACE_BLOCKS)
    const bounty = FEE * 2n * BigInt(DRAW_BOUNTY_BPS) / 10_000n // the default bond is 2 x fee
    expect(await watcher.credits()).toBe(bounty)
    expect((await chains[1].nodeInfo()).stake).toBe(stake0 - bounty)
    const paid = await watcher.findEvents({ names: ['DrawBountyPaid'], topic1: jobId })
    expect(paid.map(e => String(e.args.drawer))).toEqual([await watcher.address()])
    // the submitter's slash names the job and why, as `jobmesh start` tells it when it tops the stake up
    expect(await watcher.nodeSlashes(await chains[1].address())).toEqual([expect.objectContaining({ amount: bounty, reason: 'late-draw', jobId: jobId.toLowerCase() })])
    // the watcher's earnings (jobmesh status, the dashboard) count it, as its claims do
    expect(await earningsCursor(watcher, await watcher.address()).read()).toEqual({ earnedWei: bounty, paidJobs: 1 })
    // another watcher comes too late: nothing to draw, nothing paid
    expect(await drawIfLate({ chain: chains[3] }, jobId, OPTIONS)).toBe(false)
    expect(await chains[3].credits()).toBe(0n)
  }, 60_000)

  it('a submitter that draws in time pays nothing, and a node never draws its own submission as a watcher', async () => {
    const jobId = await submitted(2n)
    const stake0 = (await chains[1].nodeInfo()).stake
    // the submitter's own draw, as its settlement loop makes it (racing a watcher here would make the test depend on
    // whether a loaded machine mines the draw within the 16 grace blocks of 0.1 s)
    await drawVerifiers({ chain: chains[1] }, jobId, OPTIONS)
    expect((await chains[1].job(jobId)).drawn).toBe(true)
    expect(await drawIfLate({ chain: chains[2] }, jobId, { ...OPTIONS, random: () => 0 })).toBe(false)
    expect(await drawIfLate({ chain: chains[1] }, jobId, OPTIONS)).toBe(false)
    expect(await chains[2].credits()).toBe(0n)
    expect((await chains[1].nodeInfo()).stake).toBe(stake0)
    expect(await chains[1].findEvents({ names: ['DrawBountyPaid'], topic1: jobId })).toEqual([])
  }, 60_000)

  it('a submission not drawn by its deadline is not drawn after it: the submitter\'s draw reopens it, its bond unlocked, and the creator refunds', async () => {
    // every other node paused: the draw finds too few verifiers and the job waits in the escrow's queue
    for (const other of chains.slice(2)) await other.pause()
    const jobId = await submitted(3n)
    const { stake } = await chains[1].nodeInfo()
    // its bond is locked while the submission waits
    expect(await chains[1].freeStake()).toBeLessThan(stake)
    await chains[1].waitForBlock((await chains[1].job(jobId)).submitBlock + 2, { signal: AbortSignal.timeout(30_000) })
    await chains[1].selectVerifiers(jobId)
    expect((await chains[1].job(jobId))).toMatchObject({ drawn: true, assigned: 0 })
    // the deadline passes, and the nodes come back: none of them is drawn for it
    const { deadline } = await chains[0].job(jobId)
    await chains[0].provider.send('evm_increaseTime', [deadline - Number((await chains[0].provider.getBlock('latest'))?.timestamp ?? 0) + 1])
    await chains[0].provider.send('evm_mine', [])
    for (const other of chains.slice(2)) await other.resume()
    expect((await chains[1].job(jobId)).assigned).toBe(0)
    expect(await drawIfLate({ chain: chains[2] }, jobId, { ...OPTIONS, random: () => 0 })).toBe(false)
    await drawVerifiers({ chain: chains[1] }, jobId, OPTIONS)
    expect((await chains[1].job(jobId)).status).toBe('Open')
    expect(await chains[1].freeStake()).toBe(stake)
    const before = await chains[0].provider.getBalance(await chains[0].address())
    const { receipt } = await chains[0].refund(jobId)
    const gas = receipt.gasUsed * receipt.gasPrice
    expect(await chains[0].provider.getBalance(await chains[0].address()) - before + gas).toBe(FEE)
  }, 60_000)
})

