import { describe, expect, it } from 'vitest'
import { DEADLINE_MARGIN_MS } from '../../src/protocol/index.js'
import { nextJob, otherOpenJob } from '../../src/processor/job-choice.js'
import { peerJobKey } from '../../src/processor/start-order.js'
import type { KnownJob } from '../../src/jobs/index.js'
import type { JobChoiceHost } from '../../src/processor/job-choice.js'

const NOW = 1_000_000_000

/** A known job worth `value`, due at `deadline`, needing `minVramGb`. */
function job (jobId: string, value: bigint, init: { deadline?: number, minVramGb?: number } = {}): KnownJob {
  return { jobId, value, round: 0, minVramGb: init.minVramGb ?? 0, spec: { deadline: init.deadline ?? NOW + 3_600_000 } } as unknown as KnownJob
}

function host (jobs: KnownJob[], init: Partial<JobChoiceHost> = {}): JobChoiceHost {
  return { jobs: new Map(jobs.map(j => [j.jobId, j])), completed: new Set(), retired: new Map(), failedAt: new Map(), ...init }
}

const cpu = { gpuModel: 'Any', vramGb: 8 }

describe('the next job (job-choice.ts)', () => {
  it('the best paid job this hardware can run, of those not ended, retired, past their cutoff or deferred', () => {
    const jobs = [job('0xa', 10n), job('0xb', 50n), job('0xc', 40n), job('0xd', 30n), job('0xe', 20n), job('0xf', 90n, { minVramGb: 80 }),
      job('0x10', 60n, { deadline: NOW + DEADLINE_MARGIN_MS })]
    expect(nextJob(host(jobs), NOW, cpu)?.jobId).toBe('0xb')
    const h = host(jobs, { completed: new Set(['0xb']), retired: new Map([['0xc', 'expired']]), deferJob: j => j.jobId === '0xd' })
    expect(nextJob(h, NOW, cpu)?.jobId).toBe('0xe')
    expect(nextJob(host([jobs[5], jobs[6]]), NOW, cpu)).toBeUndefined()
  })

  it('a job that failed here comes after every healthy one, the most recent failure last', () => {
    const jobs = [job('0xa', 10n), job('0xb', 50n), job('0xc', 40n)]
    expect(nextJob(host(jobs, { failedAt: new Map([['0xb', 2], ['0xc', 1]]) }), NOW, cpu)?.jobId).toBe('0xa')
    expect(nextJob(host(jobs.slice(1), { failedAt: new Map([['0xb', 2], ['0xc', 1]]) }), NOW, cpu)?.jobId).toBe('0xc')
  })

  it('a job drained here (nothing open for this peer lately) comes after the others, the least recently drained first', () => {
    const jobs = [job('0xa', 10n), job('0xb', 50n), job('0xc', 40n)]
    const drained = new Map([['0xb', { at: 5, round: 0 }], ['0xc', { at: 3, round: 0 }]])
    expect(nextJob(host(jobs, { drained }), NOW, cpu)?.jobId).toBe('0xa')
    expect(nextJob(host(jobs.slice(1), { drained }), NOW, cpu)?.jobId).toBe('0xc')
    // a mark of an earlier round does not count: the new round is open work again
    const nextRound = [jobs[0], { ...jobs[1], round: 1 } as unknown as KnownJob]
    expect(nextJob(host(nextRound, { drained }), NOW, cpu)?.jobId).toBe('0xb')
  })

  it('another open job: healthy, not drained, not this one, one the hardware can run', () => {
    const jobs = [job('0xa', 10n), job('0xb', 50n), job('0xc', 40n, { minVramGb: 80 })]
    expect(otherOpenJob(host(jobs), NOW, cpu, '0xb')).toBe(true)
    expect(otherOpenJob(host(jobs, { drained: new Map([['0xa', { at: 1, round: 0 }]]) }), NOW, cpu, '0xb')).toBe(false)
    expect(otherOpenJob(host(jobs, { failedAt: new Map([['0xa', 1]]) }), NOW, cpu, '0xb')).toBe(false)
    expect(otherOpenJob(host(jobs, { completed: new Set(['0xa']) }), NOW, cpu, '0xb')).toBe(false)
    expect(otherOpenJob(host(jobs.slice(1)), NOW, cpu, '0xb')).toBe(false)
  })

  it('equally paid jobs in the order of this peer\'s key in each, so peers spread over them', () => {
    const jobs = ['0xa', '0xb', '0xc', '0xd'].map(id => job(id, 10n))
    const peers = ['peer-1', 'peer-2', 'peer-3', 'peer-4', 'peer-5', 'peer-6']
    const chosen = peers.map(self => nextJob(host(jobs, { self }), NOW, cpu)?.jobId)
    for (const [i, self] of peers.entries()) {
      const mine = [...jobs].sort((a, b) => peerJobKey(a.jobId, self) < peerJobKey(b.jobId, self) ? -1 : 1)[0].jobId
      expect(chosen[i]).toBe(mine)
    }
    expect(new Set(chosen).size).toBeGreaterThan(1)
    // pay still comes first
    expect(peers.map(self => nextJob(host([...jobs, job('0xe', 11n)], { self }), NOW, cpu)?.jobId)).toEqual(peers.map(() => '0xe'))
  })
})
