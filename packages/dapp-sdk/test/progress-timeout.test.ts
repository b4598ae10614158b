import { SYNC_PROTOCOL } from '@jobmesh/peer/crdt'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_DOC_TIMEOUT_MS } from '../src/constants.js'
import { SLICING, cleanup, setup, smallJob } from './helpers.js'
import type { Stream } from '@libp2p/interface'

afterEach(cleanup)

describe('progress with a timeout', () => {
  it('counts the job docs\' opens within its timeout: a peer that takes the catch-up and never answers costs the timeout, not the doc timeout', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })
    // from here the peer takes every catch-up exchange of a doc and never answers it (a peer starved of CPU, or stalled)
    const held: Stream[] = []
    await env.peer.libp2p.unhandle(SYNC_PROTOCOL)
    await env.peer.libp2p.handle(SYNC_PROTOCOL, (stream) => { held.push(stream) })
    const started = Date.now()
    const err = await (async () => {
      for await (const _ of env.client.progress(job.jobId, { timeoutMs: 2_000 })) {
        // nothing is processed: no update beyond the first
      }
    })().then(() => new Error('ended'), (e: unknown) => e as Error)
    const took = Date.now() - started
    expect(err.name).toBe('TimeoutError')
    expect(held.length).toBeGreaterThan(0)
    // its 2 s and room for a loaded machine: far from the doc timeout each open had (a submit --timeout 2 followed 60 s)
    expect(took).toBeLessThan(DEFAULT_DOC_TIMEOUT_MS / 2)
    for (const s of held) s.abort(new Error('test over'))
  }, 60_000)
})

describe('progress with a timeout, on a clock that lags its timers', () => {
  it('ends when its timer fires, though Date.now() says the time is not up yet (a busy loop\'s timers run ahead of it)', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })
    // no peer processes the job: only the timeout can end the wait. Date.now() stands still from here, as a clock
    // that lags the loop's timer clock would: a wait that asks the clock whether its timer's time is up waits for ever
    const frozen = Date.now()
    const now = vi.spyOn(Date, 'now').mockReturnValue(frozen)
    const started = performance.now()
    try {
      const err = await (async () => {
        for await (const _ of env.client.progress(job.jobId, { timeoutMs: 2_000 })) {
          // nothing is processed: no update beyond the first
        }
      })().then(() => new Error('ended'), (e: unknown) => e as Error)
      expect(err.name).toBe('TimeoutError')
      expect(err.message).toContain('0 of 4 MicroJobs done')
      // its 2 s and room for a loaded machine
      expect(performance.now() - started).toBeLessThan(DEFAULT_DOC_TIMEOUT_MS / 2)
    } finally {
      now.mockRestore()
    }
  }, 60_000)
})
