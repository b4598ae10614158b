import { describe, expect, it } from 'vitest'
import { explainJob, rankQueued } from '../../src/observe/index.js'
import type { QueuedVerification, VerificationView } from '../../src/observe/index.js'

const id = (n: number): string => '0x' + n.toString(16).padStart(64, '0')

function task (n: number, value: bigint, blockNumber: number, group = '48:0x00', logIndex = 0): QueuedVerification {
  return { jobId: id(n), value, blockNumber, logIndex, group }
}

describe('verification queue position', () => {
  it('ranks higher task values first, whatever the order they were queued in', () => {
    const queued = [task(1, 10n, 5), task(2, 30n, 6), task(3, 20n, 7)]
    expect(rankQueued(queued, id(2))).toMatchObject({ position: 1, of: 3 })
    expect(rankQueued(queued, id(3))).toMatchObject({ position: 2, of: 3 })
    expect(rankQueued(queued, id(1))).toMatchObject({ position: 3, of: 3 })
  })

  it('puts the earlier queued first on equal value (block, then log index)', () => {
    const queued = [task(1, 10n, 9), task(2, 10n, 7, undefined, 3), task(3, 10n, 7, undefined, 1)]
    expect([1, 2, 3].map(n => rankQueued(queued, id(n))?.position)).toEqual([3, 2, 1])
  })

  it('compares values capped at 2^192 - 1 as the escrow stores them', () => {
    const cap = (1n << 192n) - 1n
    const queued = [task(1, cap, 1), task(2, cap + 5n, 2)]
    // equal after the cap: the earlier queued (job 1) is first
    expect(rankQueued(queued, id(1))?.position).toBe(1)
    expect(rankQueued(queued, id(2))?.position).toBe(2)
  })

  it('gives the position within the (minVram, GPU model) group as well', () => {
    const queued = [task(1, 50n, 1, '48:0x00'), task(2, 40n, 2, '64:0x00'), task(3, 30n, 3, '48:0x00'), task(4, 20n, 4, '48:0xaa')]
    expect(rankQueued(queued, id(3))).toEqual({ position: 3, of: 4, groupPosition: 2, groupOf: 2 })
    expect(rankQueued(queued, id(4))).toEqual({ position: 4, of: 4, groupPosition: 1, groupOf: 1 })
  })

  it('is undefined for a job that is not queued, and ignores case in job ids', () => {
    expect(rankQueued([task(1, 1n, 1)], id(2))).toBeUndefined()
    expect(rankQueued([{ ...task(10, 1n, 1), jobId: id(10).toUpperCase().replace('0X', '0x') }], id(10))?.position).toBe(1)
  })

  it('describe says how many verifiers the job waits for and its place in the queue', () => {
    const chain: VerificationView = {
      jobId: id(3), status: 'Submitted', headBlock: 100, round: 0, k: 2, assigned: 0, commits: 0, reveals: 0, seeds: 0, sampleFixed: false,
      deadline: 2_000_000_000, feeWei: 10n ** 18n, verifiers: [], queued: true, queueSize: 5,
      queuePosition: { position: 3, of: 5, groupPosition: 1, groupOf: 2 }
    }
    const story = explainJob({ jobId: id(3), peers: [], chain })
    expect(story.phase).toBe('verifying')
    expect(story.waitingFor).toBe('2 verifiers in the verification queue: position 3 of 5 (higher-value tasks first); 1 of 2 among the jobs needing the same VRAM and GPU model; all are drawn at once when enough eligible nodes are idle')
    const alone = explainJob({ jobId: id(3), peers: [], chain: { ...chain, k: 3, queuePosition: { position: 2, of: 2, groupPosition: 2, groupOf: 2 } } })
    expect(alone.waitingFor).toBe('3 verifiers in the verification queue: position 2 of 2 (higher-value tasks first); all are drawn at once when enough eligible nodes are idle')
  })
})
