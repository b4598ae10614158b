import { ChainRevertError } from '@jobmesh/contracts'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { applyCommitTimeout } from '../../src/settlement/index.js'
import { COMMIT_TIMEOUT_RETRY_MS } from '../../src/settlement/constants.js'

/** The registry's answers, as a node busy for `busyCalls` calls of setCommitTimeout sees them. */
function registry (current: number, busyCalls: number): { client: Parameters<typeof applyCommitTimeout>[0], set: number[], tries: () => number } {
  const set: number[] = []
  let pct = current
  let busy = busyCalls
  let tries = 0
  return {
    set,
    tries: () => tries,
    client: {
      qosScores: async () => ({ timeoutPct: pct }) as Awaited<ReturnType<Parameters<typeof applyCommitTimeout>[0]['qosScores']>>,
      setCommitTimeout: async (p: number) => {
        tries++
        if (busy-- > 0) throw new ChainRevertError('NodeRegistry.setTimeout reverted: NodeIsBusy', 'NodeIsBusy')
        pct = p
        set.push(p)
        return undefined as unknown as Awaited<ReturnType<Parameters<typeof applyCommitTimeout>[0]['setCommitTimeout']>>
      }
    }
  }
}

describe('applyCommitTimeout (--commit-timeout)', () => {
  afterEach(() => { vi.useRealTimers() })

  it('sets it at once when the node is free, and not at all when it is already in force', async () => {
    const free = registry(100, 0)
    await applyCommitTimeout(free.client, '0xnode', 50, new AbortController().signal)
    expect(free.set).toEqual([50])
    const same = registry(50, 0)
    await applyCommitTimeout(same.client, '0xnode', 50, new AbortController().signal)
    expect(same.set).toEqual([])
  })

  it('a busy node starts anyway and sets it once the task is over; an abort ends the retries', async () => {
    vi.useFakeTimers()
    const busy = registry(100, 2)
    const stop = new AbortController()
    await applyCommitTimeout(busy.client, '0xnode', 50, stop.signal)
    expect(busy.set).toEqual([])
    await vi.advanceTimersByTimeAsync(COMMIT_TIMEOUT_RETRY_MS)
    expect(busy.set).toEqual([])
    await vi.advanceTimersByTimeAsync(COMMIT_TIMEOUT_RETRY_MS)
    expect(busy.set).toEqual([50])

    const stopped = registry(100, 100)
    const abort = new AbortController()
    await applyCommitTimeout(stopped.client, '0xnode', 50, abort.signal)
    await vi.advanceTimersByTimeAsync(COMMIT_TIMEOUT_RETRY_MS)
    const tried = stopped.tries()
    expect(tried).toBe(2)
    abort.abort()
    // (not vi.getTimerCount(): the files of a worker share it, and another file's timers count there too)
    await vi.advanceTimersByTimeAsync(5 * COMMIT_TIMEOUT_RETRY_MS)
    expect(stopped.set).toEqual([])
    expect(stopped.tries()).toBe(tried)
  })

  it('any other revert fails the start', async () => {
    const client = { ...registry(100, 0).client, setCommitTimeout: async () => { throw new ChainRevertError('reverted: NotRegistered', 'NotRegistered') } }
    await expect(applyCommitTimeout(client, '0xnode', 50, new AbortController().signal)).rejects.toMatchObject({ errorName: 'NotRegistered' })
  })
})
