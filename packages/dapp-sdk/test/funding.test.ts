import { INDEX_JOBS_MAP } from '@jobmesh/peer/coord'
import { indexDocName } from '@jobmesh/peer/crdt'
import { id } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { createJobClient } from '../src/index.js'
import { flakyRpc } from '@jobmesh/testkit/anvil'
import { SLICING, cleanup, registerNode, serveInputs, setup, smallJob } from './helpers.js'
import type { FlakyRpc } from '@jobmesh/testkit/anvil'
import type { Env } from './helpers.js'
import type { FundingUnknownError, JobClient, SubmitProgress } from '../src/index.js'

afterEach(cleanup)

/** Short enough that a funding whose receipts all fail times out within the test. */
const TX_TIMEOUT_MS = 1_500

/** A client (account 2) whose RPC endpoint is `rpcUrl`, bootstrapped to the env's peer, with a short transaction timeout. */
async function clientVia (env: Env, rpcUrl: string): Promise<JobClient> {
  const addr = env.peer.libp2p.getMultiaddrs().find(m => !m.toString().includes('/ws'))
  if (addr === undefined) throw new Error('the peer has no TCP address')
  return await createJobClient({
    rpcUrl,
    signer: env.anvil.accounts[2].privateKey,
    deployment: env.deployment,
    bootstrap: [addr.toString()],
    pollIntervalMs: 50,
    txTimeoutMs: TX_TIMEOUT_MS
  })
}

/** Runs `fn` with flaky proxies in front of the env's anvil (the first one nearest the client), stopping them after. */
async function withProxies<T> (env: Env, methods: string[], fn: (proxies: FlakyRpc[]) => Promise<T>): Promise<T> {
  const proxies: FlakyRpc[] = []
  try {
    let target = env.anvil.rpcUrl
    for (const method of [...methods].reverse()) {
      const proxy = await flakyRpc(target, method)
      proxies.unshift(proxy)
      target = proxy.url
    }
    return await fn(proxies)
  } finally {
    for (const p of proxies) await p.stop()
  }
}

const job = (): Parameters<JobClient['submit']>[0] => ({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })

/** A submission expected to fail: its error and the stages it reported. */
async function failedSubmit (client: JobClient): Promise<{ err: FundingUnknownError, stages: SubmitProgress[] }> {
  const stages: SubmitProgress[] = []
  const err = await client.submit(job(), { onProgress: (p) => stages.push(p), signal: AbortSignal.timeout(30_000) })
    .then(() => { throw new Error('submitted') }, (e: unknown) => e as FundingUnknownError)
  return { err, stages }
}

describe('funding whose outcome was lost', () => {
  it('every receipt read fails until the transaction times out, yet the job is funded: submit finds it on chain and goes on (announced, inputs held)', async () => {
    const env = await setup()
    const index = (await env.peerDocs.open(indexDocName(), { signal: AbortSignal.timeout(10_000) })).getMap<Uint8Array>(INDEX_JOBS_MAP)
    const server = await serveInputs(env.peer)
    // a registered node: only such a peer's "held" counts
    await registerNode(env, 5, id('any-gpu'), 8, env.deployment.params.registry.minStake, env.peer.privateKey)
    try {
      await withProxies(env, ['eth_getTransactionReceipt'], async ([receipts]) => {
        const client = await clientVia(env, receipts.url)
        try {
          receipts.failNext(1_000_000)
          const stages: SubmitProgress[] = []
          const submitted = await client.submit(job(), { onProgress: (p) => stages.push(p), signal: AbortSignal.timeout(30_000) })
          // the funding did time out: its receipt was asked for and never answered
          expect(receipts.failed()).toBeGreaterThan(0)
          expect(stages.map(s => s.stage)).toEqual(['uploading', 'creating', 'announcing', 'replicating', 'done'])
          expect(submitted.jobId).toBe(stages[1].jobId)

          // on chain: the one JobCreated of the job, in the transaction and block submit returned
          const escrow = env.contracts(0).jobEscrow
          const events = await escrow.queryFilter(escrow.filters.JobCreated(submitted.jobId))
          expect(events).toHaveLength(1)
          expect(events[0].transactionHash).toBe(submitted.txHash)
          expect(events[0].blockNumber).toBe(submitted.blockNumber)
          expect(await escrow.taskValue(submitted.jobId)).toBe(submitted.taskValue)
          expect((await env.client.status(submitted.jobId)).status).toBe('Open')
          expect((await escrow.jobs(submitted.jobId)).creator).toBe(client.address)
          // announced (the peer's index holds it) and the inputs held by the peer
          await expect.poll(() => index.has(submitted.jobId), { timeout: 20_000 }).toBe(true)
          expect(submitted.holders).toEqual([env.peer.peerId.toString()])
        } finally {
          await client.stop()
        }
      })
    } finally {
      await server.stop()
    }
  })

  it('a send that failed, the job not on chain: FundingUnknownError naming the job and `jobmesh-dapp status`; nothing paid', async () => {
    const env = await setup()
    await withProxies(env, ['eth_sendRawTransaction'], async ([sends]) => {
      const client = await clientVia(env, sends.url)
      try {
        const balance = await env.provider.getBalance(client.address)
        const nonce = await env.provider.getTransactionCount(client.address)
        sends.failNext(1)
        const { err, stages } = await failedSubmit(client)
        expect(sends.failed()).toBe(1)
        expect(err.name, err.message).toBe('FundingUnknownError')
        const jobId = stages.find(s => s.stage === 'creating')?.jobId
        expect(jobId).toMatch(/^0x[0-9a-f]{64}$/)
        expect(err.jobId).toBe(jobId)
        expect(err.message).toContain(`jobmesh-dapp status ${jobId}`)
        expect(err.message).toContain('may still be funded')
        expect((err.cause as Error).name).toMatch(/^(ChainRequestError|RpcUnreachableError)$/)
        // never announced; the job does not exist and nothing was paid
        expect(stages.map(s => s.stage)).toEqual(['uploading', 'creating'])
        expect(await env.client.status(jobId ?? '').then(() => 'found', (e: unknown) => (e as Error).name)).toBe('JobNotFoundError')
        expect(await env.provider.getTransactionCount(client.address)).toBe(nonce)
        expect(await env.provider.getBalance(client.address)).toBe(balance)
      } finally {
        await client.stop()
      }
    })
  })

  it('a funding that timed out and a lookup that failed: FundingUnknownError, though the job may be funded (here it is)', async () => {
    const env = await setup()
    await withProxies(env, ['eth_getTransactionReceipt', 'eth_getLogs'], async ([receipts, logs]) => {
      const client = await clientVia(env, receipts.url)
      try {
        receipts.failNext(1_000_000)
        logs.failNext(1_000_000)
        const { err, stages } = await failedSubmit(client)
        expect(logs.failed()).toBeGreaterThan(0)
        expect(err.name, err.message).toBe('FundingUnknownError')
        expect((err.cause as Error).name).toBe('ChainTimeoutError')
        expect(stages.map(s => s.stage)).toEqual(['uploading', 'creating'])
        // what the message tells the user to check: the job is funded after all
        expect((await env.client.status(err.jobId)).status).toBe('Open')
      } finally {
        await client.stop()
      }
    })
  })
})
