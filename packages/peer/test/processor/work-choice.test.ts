import { describe, expect, it } from 'vitest'
import { workChoice } from '../../src/processor/work-choice.js'
import type { KnownJob } from '../../src/jobs/index.js'
import type { WorkChoiceHost } from '../../src/processor/work-choice.js'

const NOW = 1_000_000_000

function job (jobId: string, value: bigint, modelId?: string): KnownJob {
  return { jobId, value, round: 0, minVramGb: 0, modelId, spec: { deadline: NOW + 3_600_000 } } as unknown as KnownJob
}

function host (jobs: KnownJob[]): WorkChoiceHost {
  return {
    jobs: new Map(jobs.map(j => [j.jobId, j])), completed: new Set(), retired: new Map(), failedAt: new Map(),
    clock: () => 7, deadlineClock: () => NOW
  }
}

describe('the processor\'s work choice (work-choice.ts)', () => {
  it('a job whose turns ended drained comes after the others until its turns end otherwise', () => {
    const jobs = [job('0xa', 10n), job('0xb', 50n)]
    const choice = workChoice(host(jobs), {})
    expect(choice.next()?.jobId).toBe('0xb')
    expect(choice.otherOpen('0xb')).toBe(true)
    choice.ended(jobs[1], 'drained')
    expect(choice.next()?.jobId).toBe('0xa')
    choice.ended(jobs[0], 'drained')
    expect(choice.otherOpen('0xa')).toBe(false)
    choice.ended(jobs[1], undefined)
    expect(choice.next()?.jobId).toBe('0xb')
  })

  it('the model of the job it took up last is warm for the next choice', () => {
    const jobs = [job('0xa', 10n, 'm'), job('0xb', 50n)]
    const choice = workChoice(host(jobs), {})
    expect(choice.next()?.jobId).toBe('0xb')
    choice.opened(jobs[0])
    expect(choice.loadedModel()).toBe('m')
    expect(choice.next()?.jobId).toBe('0xa')
  })

  it('a join that fails puts the job after the healthy ones; none without a joinJob', async () => {
    const h = host([job('0xa', 10n), job('0xb', 50n)])
    expect(workChoice(h, {}).join).toBeUndefined()
    const choice = workChoice(h, { joinJob: async () => { throw Object.assign(new Error('not mined'), { name: 'JoinNotMinedError' }) } })
    await expect(choice.join?.('0xb', 0, new AbortController().signal)).rejects.toThrow('not mined')
    expect(h.failedAt.get('0xb')).toBe(7)
    expect(choice.next()?.jobId).toBe('0xa')
  })
})
