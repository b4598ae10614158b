import { describe, expect, it } from 'vitest'
import { followRelease } from '../src/cli/follow.js'
import type { JobClient } from '../src/client.js'
import type { EscrowJob } from '../src/index.js'

const JOB = '0x' + '12'.repeat(32)

/** A client whose release wait fails `failedReads` status reads, then sees the job open, then releases it. */
function clientFailing (failedReads: number): JobClient {
  return {
    waitForRelease: async (_jobId: string, options: { onStatus?(job: EscrowJob): void, onReadError?(err: Error, failingForMs: number, outageMs: number): void }) => {
      for (let i = 0; i < failedReads; i++) options.onReadError?.(Object.assign(new Error('RPC endpoint unreachable'), { name: 'RpcUnreachableError' }), i * 1000, 120_000)
      options.onStatus?.({ status: 'Open', k: 3, assigned: 0, rejections: 0 } as EscrowJob)
      return { status: 'Released', blockNumber: 9, resultRoot: '0x' }
    }
  } as unknown as JobClient
}

/** A client whose release wait reports `statuses` in turn, then the release (the order a poll of the escrow sees). */
function clientSeeing (statuses: Array<Partial<EscrowJob>>): JobClient {
  return {
    waitForRelease: async (_jobId: string, options: { onStatus?(job: EscrowJob): void }) => {
      for (const s of statuses) options.onStatus?.({ status: 'Submitted', k: 3, assigned: 0, rejections: 0, ...s } as EscrowJob)
      return { status: 'Released', blockNumber: 9, resultRoot: '0x' }
    }
  } as unknown as JobClient
}

describe('what submit and wait say while a job is with the escrow', () => {
  it('a submitted job whose verifiers are not all drawn says so, not that they re-run a sample', async () => {
    const lines: string[] = []
    const io = { out: () => {}, err: (l: string) => lines.push(l) }
    await followRelease(clientSeeing([{ status: 'Open' }, { assigned: 0 }, { assigned: 0 }, { assigned: 3 }]), JOB, io, { quiet: false })
    expect(lines).toEqual([
      'status: Open',
      `results submitted; its 3 verifiers are not drawn yet (0 of 3): they are drawn at once when 3 eligible nodes besides its submitter are idle (jobmesh-dapp describe ${JOB} says what it waits for)`,
      'results submitted; 3 verifiers re-run a sample'
    ])
  })

  it('an RPC that stops answering is said once, and its return (the wait looked healthy for its 2 min allowance)', async () => {
    const lines: string[] = []
    const io = { out: () => {}, err: (l: string) => lines.push(l) }
    await followRelease(clientFailing(3), JOB, io, { quiet: false })
    expect(lines).toEqual([
      'warning: the chain\'s RPC did not answer a status read (RpcUnreachableError: RPC endpoint unreachable); trying again for up to 120 s',
      'the chain\'s RPC answers again',
      'status: Open'
    ])
    const quiet: string[] = []
    await followRelease(clientFailing(3), JOB, { out: () => {}, err: (l: string) => quiet.push(l) }, { quiet: true })
    expect(quiet).toEqual([])
  })
})
