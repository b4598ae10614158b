import { ANNOUNCEMENT_DOMAIN, INDEX_JOBS_MAP, PEERS_MAP } from './constants.js'
import { announcementKey } from './keys.js'
import type { CachedAnswers } from './cached-answers.js'
import type { RecordVerifier } from './signing.js'
import type { RateLimiter, UpdateVerdict, WrittenKeys } from '../crdt/index.js'

export interface IndexWritesComponents {
  verifier: RecordVerifier
  /** Whether the escrow knows a job. */
  jobs: CachedAnswers
  /** Chain reads of unknown jobs per writer, and for all writers together (key `*`). */
  reads: RateLimiter
  allReads: RateLimiter
}

/** Whether every value written under each key is a valid announcement of that key's job. */
function announcesItsKey (verifier: RecordVerifier, entries: Map<string, unknown[]>): boolean {
  for (const [key, values] of entries) {
    for (const value of values) {
      const record = value instanceof Uint8Array ? verifier.verify(value, ANNOUNCEMENT_DOMAIN) : undefined
      if (record == null || announcementKey(record.payload) !== key) return false
    }
  }
  return true
}

/** `ok` when every job that would be read fits both budgets; `later` past one; `no` for a writer far past its own. */
function budget (components: IndexWritesComponents, writer: string, jobIds: string[]): UpdateVerdict | 'ok' {
  for (const jobId of jobIds) {
    if (!components.jobs.due(jobId)) continue
    const own = components.reads.take(writer)
    if (own === 'abusive') return 'no'
    if (own !== 'ok' || components.allReads.take('*') !== 'ok') return 'later'
  }
  return 'ok'
}

/**
 * What a node that is not registered may write to the index (docs/crdt.md, Ownership): its own profile, and valid
 * announcements, each under its own job's key, of at most `maxJobs` jobs the escrow knows. `later` for anything
 * else (not applied, no penalty: a lagging RPC node, or an honest node passing on a diff, can send such an update),
 * `no` only for a writer far past its budget of chain reads.
 */
export async function indexWriteVerdict (components: IndexWritesComponents, writer: string, keys: WrittenKeys,
  maxJobs: number): Promise<UpdateVerdict> {
  for (const [map, entries] of keys) {
    if (map === PEERS_MAP && [...entries.keys()].every(k => k === writer)) continue
    if (map !== INDEX_JOBS_MAP) return 'later'
  }
  const entries = keys.get(INDEX_JOBS_MAP) ?? new Map<string, unknown[]>()
  if (entries.size > maxJobs || !announcesItsKey(components.verifier, entries)) return 'later'
  const jobIds = [...entries.keys()]
  const spent = budget(components, writer, jobIds)
  if (spent !== 'ok') return spent
  return (await Promise.all(jobIds.map(components.jobs.ask))).every(Boolean) ? 'yes' : 'later'
}
