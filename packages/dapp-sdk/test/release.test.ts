import { afterEach, describe, expect, it } from 'vitest'
import { run } from '../src/cli/program.js'
import { resultTree } from '../src/index.js'
import { DEFAULT_RPC_OUTAGE_MS, createJobClient } from '../src/index.js'
import { flakyRpc } from '@jobmesh/testkit/anvil'
import { resultCommitment } from '@jobmesh/peer/settlement'
import { AbiCoder, formatEther, keccak256 } from 'ethers'
import { SLICING, cleanup, connectFlags, driveRelease, registerNode, setup, smallJob } from './helpers.js'
import type { Env } from './helpers.js'

const PAYEE = '0x00000000000000000000000000000000000000a1'
import type { ResultLeaf } from '../src/index.js'

afterEach(cleanup)

async function mined (p: Promise<{ wait(): Promise<unknown> }>): Promise<void> {
  await (await p).wait()
}

/**
 * With the contracts directly: account 2 registers and submits (arbitrary) results, accounts 3, 4 and 5 register, commit
 * their seeds and are drawn as the job's three verifiers; then every one of them goes silent (a dead network).
 */
async function submitAndDraw (env: Env, jobId: string): Promise<void> {
  const gpu = keccak256(new TextEncoder().encode('any-gpu'))
  const stake = env.deployment.params.registry.minStake
  const coder = AbiCoder.defaultAbiCoder()
  for (const i of [2, 3, 4, 5]) await registerNode(env, i, gpu, 8, stake)
  for (const v of [3, 4, 5]) {
    await mined(env.contracts(v).jobEscrow.commitSeed(keccak256(coder.encode(['bytes32'], [keccak256(coder.encode(['uint256'], [v]))])), 0))
  }
  const sub = env.contracts(2)
  const root = keccak256('0x01')
  await mined(sub.jobEscrow.commitResults(jobId, resultCommitment(jobId, 0, root, '', await env.wallet(2).getAddress())))
  await mined(sub.jobEscrow.submitResults(jobId, root, '', []))
  await env.provider.send('evm_mine', [])
  await env.provider.send('evm_mine', [])
  await mined(sub.jobEscrow.selectVerifiers(jobId))
}

describe('waitForRelease and refund', () => {
  it('throws ReleaseTimeoutError while the job stays open', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })
    const err = await env.client.waitForRelease(job.jobId, { pollIntervalMs: 20, timeoutMs: 300 }).catch((e: unknown) => e as Error)
    expect(err.name).toBe('ReleaseTimeoutError')
    // an interval or timeout that is no duration is refused, not polled in a tight loop or ended at once
    for (const bad of [{ pollIntervalMs: 0 }, { pollIntervalMs: -1 }, { pollIntervalMs: Number.NaN }, { timeoutMs: Number.NaN }, { timeoutMs: -5 }]) {
      const refused = await env.client.waitForRelease(job.jobId, bad).catch((e: unknown) => e as Error)
      expect(refused).toMatchObject({ name: 'InvalidConfigError', message: expect.stringMatching(/^(pollIntervalMs|timeoutMs) must be a number of ms from 1 to 2147483647, not /) })
    }
  })

  it('tolerates failed status reads in a row for its outage allowance (at least 5 reads), then throws the last one\'s error', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })
    // a second client whose RPC endpoint fails the escrow reads (eth_call) on demand
    const rpc = await flakyRpc(env.anvil.rpcUrl, 'eth_call')
    const client = await createJobClient({ rpcUrl: rpc.url, signer: env.anvil.accounts[1].privateKey, deployment: env.deployment })
    try {
      rpc.failNext(5)
      // the first status read after the 5 failures ends the wait (the job stays open), however slow the reads are
      const stop = new AbortController()
      const onStatus = (): void => { if (rpc.failed() === 5) stop.abort() }
      const tolerated = await client.waitForRelease(job.jobId, { pollIntervalMs: 20, timeoutMs: 30_000, rpcOutageMs: 0, signal: stop.signal, onStatus }).catch((e: unknown) => e as Error)
      expect(rpc.failed()).toBe(5)
      expect(tolerated.name).toBe('AbortError')

      // with no outage allowance the 6th failed read in a row ends the wait
      rpc.failNext(6)
      const thrown = await client.waitForRelease(job.jobId, { pollIntervalMs: 20, timeoutMs: 30_000, rpcOutageMs: 0 }).catch((e: unknown) => e as Error)
      expect(rpc.failed()).toBe(11)
      expect(['ChainRequestError', 'RpcUnreachableError']).toContain(thrown.name)

      // by default an outage of many reads (a node restart, a network blip: 2 min) is waited out
      rpc.failNext(20)
      const waitedOut = new AbortController()
      const after = (): void => { if (rpc.failed() === 31) waitedOut.abort() }
      // each failed read tried again is told, with how long the reads have failed and the allowance
      const told: Array<[string, number, number]> = []
      const onReadError = (err: Error, failingForMs: number, outageMs: number): void => { told.push([err.name, failingForMs, outageMs]) }
      const outlived = await client.waitForRelease(job.jobId, { pollIntervalMs: 20, timeoutMs: 30_000, signal: waitedOut.signal, onStatus: after, onReadError }).catch((e: unknown) => e as Error)
      expect(rpc.failed()).toBe(31)
      expect(outlived.name).toBe('AbortError')
      expect(told).toHaveLength(20)
      expect(told[0][1]).toBe(0)
      expect(told[19][1]).toBeGreaterThan(told[0][1])
      expect(told.every(([name, , outage]) => ['ChainRequestError', 'RpcUnreachableError'].includes(name) && outage === DEFAULT_RPC_OUTAGE_MS)).toBe(true)

      // an endpoint down for longer than the allowance ends the wait with its error, once that long has passed
      rpc.failNext(Number.MAX_SAFE_INTEGER)
      const started = Date.now()
      const down = await client.waitForRelease(job.jobId, { pollIntervalMs: 20, timeoutMs: 30_000, rpcOutageMs: 500 }).catch((e: unknown) => e as Error)
      expect(['ChainRequestError', 'RpcUnreachableError']).toContain(down.name)
      expect(Date.now() - started).toBeGreaterThanOrEqual(500)
      expect(rpc.failed()).toBeGreaterThan(31 + 5)
    } finally {
      await client.stop()
      await rpc.stop()
    }
  })

  it('jobmesh-dapp wait: a failed read of its advisory check (active nodes) does not end the wait', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })
    // every eth_call of NodeRegistry.activeNodes fails; the status reads go through
    const selector = env.contracts(1).nodeRegistry.interface.getFunction('activeNodes')?.selector ?? ''
    expect(selector).toMatch(/^0x[0-9a-f]{8}$/)
    const rpc = await flakyRpc(env.anvil.rpcUrl, c => c.method === 'eth_call' && JSON.stringify(c.params ?? []).includes(selector.slice(2)))
    try {
      rpc.failNext(Number.MAX_SAFE_INTEGER)
      const flags = await connectFlags(env)
      flags[flags.indexOf('--rpc') + 1] = rpc.url
      const err: string[] = []
      expect(await run(['wait', job.jobId, '--timeout', '1', ...flags], { out: () => {}, err: (l) => err.push(l) })).toBe(1)
      expect(rpc.failed()).toBeGreaterThan(0)
      expect(err.join('\n')).toContain('ReleaseTimeoutError')
    } finally {
      await rpc.stop()
    }
  })

  it('resolves when the escrow releases the job', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })
    const seen: string[] = []
    const waiting = env.client.waitForRelease(job.jobId, {
      pollIntervalMs: 20,
      timeoutMs: 60_000,
      onStatus: (j) => { if (seen.at(-1) !== j.status) seen.push(j.status) }
    })
    const leaves: ResultLeaf[] = job.microJobs.map((d, g) => ({
      microId: d.microId, macroIndex: d.macroIndex, index: d.index, outputHash: `0x${(g + 1).toString(16).padStart(64, '0')}`, payee: PAYEE
    }))
    const settledIn = await driveRelease(env, job.jobId, resultTree(leaves), leaves)
    const release = await waiting
    expect(release.status).toBe('Released')
    expect(release.blockNumber).toBe(settledIn)
    expect(release.resultRoot).toBe(resultTree(leaves).root)
    expect(seen[0]).toBe('Open')
    expect(seen.at(-1)).toBe('Released')

    // jobmesh-dapp wait --poll takes seconds (0.5): the released job ends the wait at once
    const out: string[] = []
    const err: string[] = []
    expect(await run(['wait', job.jobId, '--poll', '0.5', '--timeout', '30', ...await connectFlags(env)],
      { out: (l) => out.push(l), err: (l) => err.push(l) })).toBe(0)
    expect(out).toEqual([`released in block ${settledIn}`])

    // a released job cannot be refunded, and the refusal names its status
    const refused = await env.client.refund(job.jobId).catch((e: unknown) => e as Error & { errorName: string })
    expect(refused.name).toBe('ChainRevertError')
    expect(refused.errorName).toBe('WrongStatus')
    expect(refused.message).toBe(`job ${job.jobId} is Released: only an Open job, or a Submitted one whose verifiers are not drawn yet, ` +
      'can be refunded, after its deadline (JobEscrow.refund reverted: WrongStatus)')
  })

  it('ends progress at total once the round is released on chain, even when no result record reached the client', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })
    const total = job.microJobs.length
    const seen: number[] = []
    const following = (async () => {
      for await (const p of env.client.progress(job.jobId, { timeoutMs: 60_000 })) seen.push(p.done)
    })()
    const leaves: ResultLeaf[] = job.microJobs.map((d, g) => ({
      microId: d.microId, macroIndex: d.macroIndex, index: d.index, outputHash: `0x${(g + 1).toString(16).padStart(64, '0')}`, payee: PAYEE
    }))
    await driveRelease(env, job.jobId, resultTree(leaves), leaves)
    await following
    // nobody wrote a result record (no peer ran here): the count comes from the release
    expect(seen[0]).toBe(0)
    expect(seen.at(-1)).toBe(total)
  }, 90_000)

  it('throws JobRejectedError when rejected results leave the job open past its deadline', async () => {
    const env = await setup()
    const job = await env.client.submit({
      ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3, deadline: Date.now() + 600_000
    })
    const leaves: ResultLeaf[] = job.microJobs.map((d, g) => ({
      microId: d.microId, macroIndex: d.macroIndex, index: d.index, outputHash: `0x${(g + 1).toString(16).padStart(64, '0')}`, payee: PAYEE
    }))
    await driveRelease(env, job.jobId, resultTree(leaves), leaves, { honest: false })
    const reopened = await env.client.status(job.jobId)
    expect([reopened.status, reopened.rejections]).toEqual(['Open', 1])
    await env.provider.send('evm_increaseTime', [3600])
    await env.provider.send('evm_mine', [])
    const err = await env.client.waitForRelease(job.jobId, { timeoutMs: 30_000 }).catch((e: unknown) => e as Error)
    expect(err.name).toBe('JobRejectedError')
  })

  it('refund settles a verification round its dead network left open, once due, then refunds; before that it says from which block', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3, deadlineAfterMs: 600_000 })
    await submitAndDraw(env, job.jobId)
    const drawn = await env.client.status(job.jobId)
    expect([drawn.status, drawn.assigned, drawn.k]).toEqual(['Submitted', 3, 3])

    // past the deadline, the reveal window still open: refused, naming the block from which the round can be settled
    await env.provider.send('evm_increaseTime', [3600])
    await env.provider.send('evm_mine', [])
    const stages: string[] = []
    const early = await env.client.refund(job.jobId, { onProgress: (p) => stages.push(p.stage) })
      .catch((e: unknown) => e as Error & { errorName: string })
    const head = await env.provider.getBlockNumber()
    expect(early.name).toBe('ChainRevertError')
    expect(early.errorName).toBe('VerificationUnderway')
    expect(early.message).toBe(`job ${job.jobId} is being verified (its verifiers are drawn): its round can be settled after block ${drawn.revealDeadline} ` +
      `(the end of its reveal window; the chain is at block ${head}, ${drawn.revealDeadline + 1 - head} more to go); from then on refund settles it first, then refunds ` +
      '(JobEscrow.refund reverted: VerificationUnderway)')
    expect(stages).toEqual(['refunding'])

    // the reveal window over and no peer left to settle: jobmesh-dapp refund settles the round, then refunds
    await env.provider.send('anvil_mine', [`0x${(drawn.revealDeadline + 1 - head).toString(16)}`])
    const before = await env.provider.getBalance(env.client.address)
    const out: string[] = []
    const err: string[] = []
    expect(await run(['refund', job.jobId, ...await connectFlags(env)], { out: (l) => out.push(l), err: (l) => err.push(l) }), err.join('\n')).toBe(0)
    expect(err[0]).toBe(`settling the verification round of job ${job.jobId} first: it is past its deadline and no peer settled it (anyone may)...`)
    expect(err[1]).toMatch(/^settled in block \d+ \(tx 0x[0-9a-f]{64}\)$/)
    expect(out).toEqual([expect.stringMatching(new RegExp(`^refunded ${formatEther(job.spec.price)} ETH to the job's creator ${env.client.address} in block \\d+ \\(tx 0x[0-9a-f]{64}\\)$`))])
    expect((await env.client.status(job.jobId)).status).toBe('Refunded')
    expect(await env.provider.getBalance(env.client.address)).toBeGreaterThan(before)
  })

  it('refunds after the deadline, not before', async () => {
    const env = await setup()
    const job = await env.client.submit({
      ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3, deadline: Date.now() + 600_000
    })
    const early = await env.client.refund(job.jobId).catch((e: unknown) => e as Error & { errorName: string })
    expect(early.name).toBe('ChainRevertError')
    expect(early.errorName).toBe('DeadlineNotReached')

    await env.provider.send('evm_increaseTime', [3600])
    await env.provider.send('evm_mine', [])
    // past the deadline with no results: waitForRelease gives up at once
    const expired = await env.client.waitForRelease(job.jobId, { timeoutMs: 30_000 }).catch((e: unknown) => e as Error)
    expect(expired.name).toBe('DeadlinePassedError')
    expect(expired.message).toBe(`job ${job.jobId.toLowerCase()} passed its deadline without results; refund it (jobmesh-dapp refund ${job.jobId.toLowerCase()}, or the SDK's refund)`)
    // past its deadline by the chain's clock (not yet by this machine's): describe says so, and `wait` gives no
    // advice for before the deadline (no node is registered here: it warned "until more nodes join"), only the refund
    expect((await env.client.describe(job.jobId)).phase).toBe('expired')
    const waitErr: string[] = []
    expect(await run(['wait', job.jobId, '--timeout', '30', ...await connectFlags(env)], { out: () => {}, err: (l) => waitErr.push(l) })).toBe(1)
    expect(waitErr.join('\n')).not.toContain('warning:')
    expect(waitErr.join('\n')).toContain('DeadlinePassedError')
    // and its results: none will come, and the error says why (not "yet")
    const late = await env.client.results(job.jobId, { timeoutMs: 30_000 }).catch((e: unknown) => e as Error)
    expect(late.name).toBe('ResultNotFoundError')
    expect(late.message).toMatch(new RegExp(`^MicroJob 0\\.0 of ${job.jobId} has no result \\(its deadline \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ passed before a release: no peer works on it any more, and its creator may refund it\\)$`))

    const before = await env.provider.getBalance(env.client.address)
    const refund = await env.client.refund(job.jobId)
    expect(refund.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect([refund.creator, refund.feeWei]).toEqual([env.client.address, job.spec.price])
    expect((await env.client.status(job.jobId)).status).toBe('Refunded')
    expect(await env.provider.getBalance(env.client.address)).toBeGreaterThan(before)
    const refunded = await env.client.waitForRelease(job.jobId).catch((e: unknown) => e as Error)
    expect(refunded.name).toBe('JobRefundedError')
    // results of a refunded job nobody ran: none will come, and the error says so (not "yet")
    const none = await env.client.results(job.jobId, { timeoutMs: 30_000 }).catch((e: unknown) => e as Error)
    expect(none.name).toBe('ResultNotFoundError')
    expect(none.message).toBe(`MicroJob 0.0 of ${job.jobId} has no result (the job was refunded: its fee went back, and no result will come)`)

    // a second refund sends nothing (the escrow would take it as a no-op that costs gas); an unknown job, and a
    // string that is no job id, are refused as such
    const nonce = await env.provider.getTransactionCount(env.client.address, 'pending')
    const again = await env.client.refund(job.jobId).catch((e: unknown) => e as Error)
    expect(again.name).toBe('JobRefundedError')
    expect(again.message).toBe(`job ${job.jobId} was refunded already: its fee went back to its creator`)
    expect((await env.client.refund('0x' + 'cd'.repeat(32)).catch((e: unknown) => e as Error)).name).toBe('JobNotFoundError')
    expect(await env.provider.getTransactionCount(env.client.address, 'pending')).toBe(nonce)
    for (const bad of ['hello', job.jobId.slice(0, -1), `${job.jobId}00`]) {
      expect((await env.client.status(bad).catch((e: unknown) => e as Error)).name).toBe('InvalidJobIdError')
      expect((await env.client.refund(bad).catch((e: unknown) => e as Error)).name).toBe('InvalidJobIdError')
    }
  })
})
