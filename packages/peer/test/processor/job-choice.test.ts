import { describe, expect, it } from 'vitest'
import { DEADLINE_MARGIN_MS } from '../../src/protocol/index.js'
import { nextJob } from '../../src/processor/job-choice.js'
import type { KnownJob } from '../../src/jobs/index.js'
import type { JobChoiceHost } from '../../src/processor/job-choice.js'

const NOW = 1_000_000_000

/** A known job worth `value`, due at `deadline`, needing `minVramGb`. */
function job (jobId: string, value: bigint, init: { deadline?: number, minVramGb?: number } = {}): KnownJob {
  return { jobId, value, minVramGb: init.minVramGb ?? 0, spec: { deadline: init.deadline ?? NOW + 3_600_000 } } as unknown as KnownJob
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
})
