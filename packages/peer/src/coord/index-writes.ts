import { ANNOUNCEMENT_DOMAIN, INDEX_JOBS_MAP, MAX_PROFILE_BYTES, PROFILE_DOMAIN } from './constants.js'
import { announcementKey } from './keys.js'
import type { CachedAnswers } from './cached-answers.js'
import type { RecordVerifier } from './signing.js'
import type { RateLimiter, WrittenKeys } from '../crdt/index.js'

export interface IndexWritesComponents {
  verifier: RecordVerifier
  /** Whether the escrow knows a job. */
  jobs: CachedAnswers
  /** Chain reads of unknown jobs per writer, and for all writers together (key `*`). */
  reads: RateLimiter
  allReads: RateLimiter
}

/** Each key holds one value, a valid announcement of that key's job. */
function announcesItsKey (verifier: RecordVerifier, entries: Map<string, unknown[]>): boolean {
  for (const [key, values] of entries) {
    const value = values.length === 1 ? values[0] : undefined
    const record = value instanceof Uint8Array ? verifier.verify(value, ANNOUNCEMENT_DOMAIN) : undefined
    if (record == null || announcementKey(record.payload) !== key) return false
  }
  return true
}

/** The writer's own profile and nothing else in `peers`: one valid record of its own, of a profile's size. */
export function ownProfile (verifier: RecordVerifier, writer: string, entries: Map<string, unknown[]>): boolean {
  for (const [key, values] of entries) {
    const value = values.length === 1 ? values[0] : undefined
    if (key !== writer || !(value instanceof Uint8Array) || value.byteLength > MAX_PROFILE_BYTES) return false
    if (verifier.verify(value, `${PROFILE_DOMAIN}/${key}`)?.signer !== writer) return false
  }
  return true
}

/**
 * What a node that is not registered may write to the index (docs/crdt.md, Ownership): one valid
 * announcement under each job's own key, of at most `maxJobs` jobs the escrow knows; each job not read yet is read
 * within the writer's budget and the one for all writers (a token each, only for a read that runs). `later`
 * for anything else: not applied, and no penalty (a lagging RPC node, or an honest node passing on a diff, can send
 * such an update; a budget is this peer's state, which a forwarder cannot know).
 */
export async function indexWriteVerdict (components: IndexWritesComponents, writer: string, keys: WrittenKeys,
  maxJobs: number): Promise<'yes' | 'later'> {
  for (const map of keys.keys()) {
    if (map !== INDEX_JOBS_MAP) return 'later'
  }
  const entries = keys.get(INDEX_JOBS_MAP) ?? new Map<string, unknown[]>()
  if (entries.size > maxJobs || !announcesItsKey(components.verifier, entries)) return 'later'
  const jobIds = [...entries.keys()]
  const reads = jobIds.filter(components.jobs.due).length
  for (let i = 0; i < reads; i++) {
    if (components.reads.take(writer) !== 'ok' || components.allReads.take('*') !== 'ok') return 'later'
  }
  return (await Promise.all(jobIds.map(components.jobs.ask))).every(Boolean) ? 'yes' : 'later'
}
