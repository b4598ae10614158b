import { describe, expect, it } from 'vitest'
import { macroTopic } from '../../src/coord/index.js'
import { roundKey } from '../../src/jobs/index.js'
import { followRounds } from '../../src/processor/job-rounds.js'
import type { JobContext } from '../../src/processor/job-context.js'
import type { JobRoundsHost } from '../../src/processor/job-rounds.js'
import type { KnownJob } from '../../src/jobs/index.js'

const A = '0x' + 'aa'.repeat(32)
const B = '0x' + 'bb'.repeat(32)

function known (jobId: string, round: number): KnownJob {
  return { jobId, round, key: roundKey(jobId, round) } as unknown as KnownJob
}

describe('job rounds (processor/job-rounds.ts)', () => {
  it('moves a job to its round on chain and retires the round it held; leaves alone a job already there or not read yet', () => {
    const calls: string[] = []
    const ctx = {
      job: known(A, 3),
      finalized: false,
      batch: { flush: () => { calls.push('flush') } },
      rooms: new Map([[0, { close: () => { calls.push('room 0 closed') } }]]),
      progress: { stop: () => { calls.push('progress stopped') } },
      failures: { stop: () => { calls.push('failures stopped') } }
    } as unknown as JobContext
    const onChain = new Map([[A, 1], [B, 0]])
    const host: JobRoundsHost = {
      self: '12D3KooWself',
      jobs: new Map([[A, known(A, 3)], [B, known(B, 0)], ['0xcc', known('0xcc', 2)]]),
      contexts: new Map([[A, ctx]]),
      completed: new Set([A, B]),
      failed: new Set([A]),
      unguards: new Map([[macroTopic(roundKey(A, 3)), () => { calls.push('unguarded') }]]),
      pubsub: { unsubscribe: (topic: string) => { calls.push(`unsubscribed ${topic}`) } },
      roundOf: (jobId) => onChain.get(jobId)
    }
    followRounds(host)
    // A: the forged round 3 it held gives way to round 1, and nothing of round 3 is left running
    expect(host.jobs.get(A)).toMatchObject({ round: 1, key: roundKey(A, 1) })
    expect(host.contexts.has(A)).toBe(false)
    expect(ctx.finalized).toBe(true)
    expect(calls).toEqual(['flush', 'room 0 closed', 'progress stopped', 'failures stopped', `unsubscribed ${macroTopic(roundKey(A, 3))}`, 'unguarded'])
    expect(host.completed.has(A) || host.failed.has(A)).toBe(false)
    // B is in its round on chain (still complete); 0xcc was not read yet (its announced round stands)
    expect(host.jobs.get(B)?.round).toBe(0)
    expect(host.completed.has(B)).toBe(true)
    expect(host.jobs.get('0xcc')?.round).toBe(2)
    // without a chain nothing moves
    const alone = new Map([[B, known(B, 5)]])
    followRounds({ ...host, jobs: alone, roundOf: undefined })
    expect(alone.get(B)?.round).toBe(5)
  })
})
