import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { endOnSummaries } from '../../src/processor/summary-check.js'
import type { JobContext } from '../../src/processor/job-context.js'
import type { SummaryCheckHost } from '../../src/processor/summary-check.js'

const CHECK_MS = 30_000

/**
 * A job of 3 MacroJobs of 2 MicroJobs: MacroJob 0's results are here, 1 and 2 are summarized and their docs not held.
 * A read of m brings the results `docs[m]` holds; a resync brings `resynced[m]` too.
 */
function harness (docs: Record<number, string[]>, resynced: Record<number, string[]> = {}) {
  const done = new Set(['0.0', '0.1'])
  const held = new Set<number>([0])
  const calls: string[] = []
  const events: string[] = []
  const controller = new AbortController()
  let settled = false
  const ctx = {
    job: { jobId: '0xjob' },
    finalized: false,
    lastLocalResult: 0,
    rooms: new Map(),
    unbelieved: new Set(),
    macroLeases: { get: () => ({ owner: 'someone' }) },
    slicing: { macroJobs: [0, 1, 2].map(() => ({ size: 2 })) },
    progress: {
      get complete () { return done.size === 6 },
      doneIn: (m: number) => [...done].filter(k => k.startsWith(`${m}.`)).length,
      has: (k: string) => done.has(k),
      hinted: (m: number) => m > 0 && !held.has(m)
    },
    readMacro: async (m: number) => {
      calls.push(`read ${m}`)
      held.add(m)
      for (const k of docs[m] ?? []) done.add(k)
    },
    resyncMacro: async (m: number) => {
      calls.push(`resync ${m}`)
      for (const k of resynced[m] ?? []) done.add(k)
    }
  } as unknown as JobContext
  const reopened: string[] = []
  const host: SummaryCheckHost = {
    endHost: {
      completed: new Set(),
      failed: new Set(),
      doneElsewhere: new Set(),
      clock: () => 0,
      dispatch: (type) => { events.push(type) }
    },
    summaryCheckMs: CHECK_MS,
    settled: () => settled,
    reopen: (c) => { reopened.push(c.job.jobId) },
    signal: () => controller.signal
  }
  return { ctx, host, calls, events, reopened, controller, settle: () => { settled = true } }
}

describe('a job ended on its MacroJob summaries, checked later (summary-check.ts)', () => {
  beforeEach(() => { vi.useFakeTimers() })
  afterEach(() => { vi.useRealTimers() })

  it('ends the job at once, reads no doc until the check, and then leaves a job whose docs bear the summaries out', async () => {
    const h = harness({ 1: ['1.0', '1.1'], 2: ['2.0', '2.1'] })
    endOnSummaries(h.host, h.ctx)
    expect(h.events).toEqual(['job:complete'])
    expect(h.host.endHost.completed.has('0xjob')).toBe(true)
    await vi.advanceTimersByTimeAsync(CHECK_MS - 1)
    expect(h.calls).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(h.calls).toEqual(['read 1', 'read 2'])
    expect(h.reopened).toEqual([])
    // once ended, a second call schedules nothing more
    endOnSummaries(h.host, h.ctx)
    await vi.advanceTimersByTimeAsync(CHECK_MS)
    expect(h.calls).toEqual(['read 1', 'read 2'])
  })

  it('reopens the job when a doc is still short of its results after its read and an exchange with every peer', async () => {
    const h = harness({ 1: ['1.0', '1.1'], 2: ['2.0'] })
    endOnSummaries(h.host, h.ctx)
    await vi.advanceTimersByTimeAsync(CHECK_MS)
    expect(h.calls).toEqual(['read 1', 'read 2', 'resync 2'])
    expect(h.reopened).toEqual(['0xjob'])
  })

  it('does not reopen it when the exchange brings the rest (the read reached a member that lagged)', async () => {
    const h = harness({ 1: ['1.0', '1.1'], 2: ['2.0'] }, { 2: ['2.1'] })
    endOnSummaries(h.host, h.ctx)
    await vi.advanceTimersByTimeAsync(CHECK_MS)
    expect(h.calls).toEqual(['read 1', 'read 2', 'resync 2'])
    expect(h.reopened).toEqual([])
  })

  it('reads nothing for a job settled on chain by then, nor after the processor stopped', async () => {
    const settled = harness({})
    endOnSummaries(settled.host, settled.ctx)
    settled.settle()
    await vi.advanceTimersByTimeAsync(CHECK_MS)
    expect(settled.events).toEqual(['job:complete'])
    expect(settled.calls).toEqual([])
    expect(settled.reopened).toEqual([])

    const stopped = harness({})
    endOnSummaries(stopped.host, stopped.ctx)
    stopped.controller.abort()
    await vi.advanceTimersByTimeAsync(CHECK_MS)
    expect(stopped.calls).toEqual([])
  })

  it('does not end a job with a MacroJob that is neither finished here nor summarized', async () => {
    const h = harness({})
    ;(h.ctx.progress as unknown as { hinted: (m: number) => boolean }).hinted = (m: number) => m === 1
    endOnSummaries(h.host, h.ctx)
    expect(h.events).toEqual([])
    await vi.advanceTimersByTimeAsync(CHECK_MS)
    expect(h.calls).toEqual([])
  })
})
