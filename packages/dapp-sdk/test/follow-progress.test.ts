import { describe, expect, it } from 'vitest'
import { followProgress } from '../src/cli/follow.js'
import { JobFailedError } from '../src/errors.js'
import type { JobClient } from '../src/index.js'

describe('following a submitted job\'s progress (jobmesh-dapp submit)', () => {
  it('a job the peers gave up says that nobody is paid and how to take the fee back, as `wait` does', async () => {
    const jobId = '0x' + 'c'.repeat(64)
    const failed = { attempts: 3, peers: 3, reasons: ['WasmTrapError'] }
    const client = {
      progress: async function * () {
        yield { done: 0, total: 4 }
        throw new JobFailedError(`job ${jobId} failed: 3 failed MicroJob attempts on 3 peers (WasmTrapError)`, failed)
      },
      status: async () => ({ deadline: 1_796_250_000 })
    } as unknown as JobClient
    const io = { out: () => {}, err: () => {} }
    const err = await followProgress(client, jobId, io, { quiet: true }).catch((e: unknown) => e as JobFailedError)
    expect(err).toMatchObject({ name: 'JobFailedError', attempts: 3, peers: 3, reasons: ['WasmTrapError'] })
    // `submit` printed only the first half: the fee it had just paid was not mentioned
    expect(err.message).toBe(`job ${jobId} failed: 3 failed MicroJob attempts on 3 peers (WasmTrapError); nobody is paid for failed work: ` +
      `take the fee back after its deadline (${new Date(1_796_250_000_000).toISOString()}) with \`jobmesh-dapp refund ${jobId}\``)
  })

  it('other failures pass through unchanged', async () => {
    const boom = Object.assign(new Error('no peer'), { name: 'TimeoutError' })
    const client = { progress: async function * () { yield { done: 0, total: 4 }; throw boom }, status: async () => { throw new Error('not asked') } } as unknown as JobClient
    await expect(followProgress(client, '0x' + 'd'.repeat(64), { out: () => {}, err: () => {} }, { quiet: true })).rejects.toBe(boom)
  })
})
