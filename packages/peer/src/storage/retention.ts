import { logger } from '@libp2p/logger'
import { Key } from 'interface-datastore'
import createMortice from 'mortice'
import { CID } from 'multiformats/cid'
import { DEFAULT_RETAIN_MS } from './constants.js'
import type { Pins } from '@helia/interface'
import type { Datastore } from 'interface-datastore'

const log = logger('jobmesh:storage:retention')

const PREFIX = '/jobmesh/retention'
const jobKey = (jobId: string, cid: string): Key => new Key(`${PREFIX}/jobs/${jobId}/${cid}`)
const cidKey = (cid: string, jobId: string): Key => new Key(`${PREFIX}/cids/${cid}/${jobId}`)
const endedKey = (jobId: string): Key => new Key(`${PREFIX}/ended/${jobId}`)
const lastPart = (key: Key): string => key.toString().slice(key.toString().lastIndexOf('/') + 1)

export interface RetentionComponents {
  /** Where the records live (the node's datastore: they outlive a restart). */
  datastore: Pick<Datastore, 'put' | 'get' | 'has' | 'delete' | 'queryKeys' | 'query'>
  pins: Pick<Pins, 'rm'>
  /** Removes the blocks no pin holds (helia's `gc`). */
  gc(options?: { signal?: AbortSignal }): Promise<void>
}

export interface RetentionInit {
  /** How long a job's content is kept after the job ended (ms); `Infinity` keeps it. Default {@link DEFAULT_RETAIN_MS}. */
  retainMs?: number
  /** CIDs never unpinned whatever the jobs holding them (the models this node keeps at hand). */
  kept?(cid: string): boolean
}

export interface SweepResult {
  /** The jobs whose content was let go (ended more than `retainMs` before). */
  jobs: string[]
  /** The CIDs unpinned (held by no other job, not kept). */
  unpinned: string[]
}

/**
 * Which jobs hold which pinned content here, and when each job ended: the content of a job is unpinned once every
 * job that holds it ended more than `retainMs` ago (docs/settlement.md, Retention).
 */
export interface Retention {
  /**
   * Runs `store` (adds or pins content) with no sweep under way, then records `jobId` as a holder of the CID it
   * returns. A sweep waits for stores under way, and stores wait for a sweep under way: a CID a sweep found held by
   * nobody is never the CID of a store that has just pinned it.
   */
  holding(jobId: string, store: () => Promise<string>, options?: { signal?: AbortSignal }): Promise<string>
  /** The job is over (released, refunded or past its deadline) as of `at` (unix ms); the first call counts. */
  ended(jobId: string, at: number): Promise<void>
  /** Lets go of the content of the jobs that ended more than `retainMs` before `now`, then collects its blocks. */
  sweep(now: number, options?: { signal?: AbortSignal }): Promise<SweepResult>
  /** How many jobs hold content here, and how many of them have ended. */
  count(options?: { signal?: AbortSignal }): Promise<{ jobs: number, ended: number }>
  /** What the sweeps let go of since this retention was made, and how long content is kept (`Infinity`: always). */
  totals(): { retainMs: number, jobs: number, unpinned: number }
  stop(): void
}

/**
 * @example
 * ```ts
 * const retention = createRetention({ datastore: node.datastore, pins: node.helia.pins, gc: o => node.helia.gc(o) })
 * const store = createContentStore({ helia: node.helia, retention })
 * await store.pin(`ipfs://${cid}`, { job: jobId })
 * await retention.ended(jobId, Date.now())
 * await retention.sweep(Date.now())
 * ```
 */
export function createRetention (components: RetentionComponents, init: RetentionInit = {}): Retention {
  const retainMs = init.retainMs ?? DEFAULT_RETAIN_MS
  const kept = init.kept ?? (() => false)
  // stores share the lock, a sweep holds it alone
  const lock = createMortice({ name: `jobmesh:retention:${Math.random().toString(36).slice(2)}`, singleProcess: true })
  const store = components.datastore
  const totals = { jobs: 0, unpinned: 0 }

  // read whole before any of them is deleted
  const keys = async (prefix: string, signal?: AbortSignal): Promise<Key[]> => {
    const found: Key[] = []
    for await (const key of store.queryKeys({ prefix }, { signal })) found.push(key)
    return found
  }
  const holders = async (cid: string, signal?: AbortSignal): Promise<boolean> => {
    for await (const _ of store.queryKeys({ prefix: `${PREFIX}/cids/${cid}/`, limit: 1 }, { signal })) return true
    return false
  }
  const endedAt = async (jobId: string, signal?: AbortSignal): Promise<number> => {
    return Number(new TextDecoder().decode(await store.get(endedKey(jobId), { signal })))
  }

  /** Drops `jobId`'s records; returns the CIDs it held that no other job holds now. */
  const release = async (jobId: string, signal?: AbortSignal): Promise<string[]> => {
    const free: string[] = []
    for (const key of await keys(`${PREFIX}/jobs/${jobId}/`, signal)) {
      const cid = lastPart(key)
      await store.delete(cidKey(cid, jobId), { signal })
      await store.delete(key, { signal })
      if (!await holders(cid, signal) && !kept(cid)) free.push(cid)
    }
    await store.delete(endedKey(jobId), { signal })
    return free
  }

  const unpin = async (cid: string, signal?: AbortSignal): Promise<boolean> => {
    try {
      for await (const _ of components.pins.rm(CID.parse(cid), { signal })) { /* the pin's blocks, released */ }
      return true
    } catch (err) {
      if ((err as Error).name === 'NotFoundError') return false
      throw err
    }
  }

  return {
    async holding (jobId, add, options = {}) {
      const done = await lock.readLock({ signal: options.signal })
      try {
        const cid = await add()
        await store.put(jobKey(jobId, cid), new Uint8Array(0), { signal: options.signal })
        await store.put(cidKey(cid, jobId), new Uint8Array(0), { signal: options.signal })
        return cid
      } finally {
        done()
      }
    },
    async ended (jobId, at) {
      if (await store.has(endedKey(jobId))) return
      await store.put(endedKey(jobId), new TextEncoder().encode(String(Math.floor(at))))
    },
    async sweep (now, options = {}) {
      const result: SweepResult = { jobs: [], unpinned: [] }
      if (!Number.isFinite(retainMs)) return result
      const done = await lock.writeLock({ signal: options.signal })
      try {
        for (const key of await keys(`${PREFIX}/ended/`, options.signal)) {
          const jobId = lastPart(key)
          if (await endedAt(jobId, options.signal) + retainMs >= now) continue
          result.jobs.push(jobId)
          for (const cid of await release(jobId, options.signal)) {
            if (await unpin(cid, options.signal)) result.unpinned.push(cid)
          }
        }
        if (result.unpinned.length > 0) await components.gc({ signal: options.signal })
      } finally {
        done()
      }
      totals.jobs += result.jobs.length
      totals.unpinned += result.unpinned.length
      if (result.jobs.length > 0) log('let go of %d jobs\' content: %d pins', result.jobs.length, result.unpinned.length)
      return result
    },
    async count (options = {}) {
      const jobs = new Set<string>()
      for await (const key of store.queryKeys({ prefix: `${PREFIX}/jobs/` }, options)) jobs.add(key.toString().split('/')[4])
      let ended = 0
      for await (const _ of store.queryKeys({ prefix: `${PREFIX}/ended/` }, options)) ended++
      return { jobs: jobs.size, ended }
    },
    totals () {
      return { retainMs, ...totals }
    },
    stop () {
      lock.finalize()
    }
  }
}
