import { logger } from '@libp2p/logger'
import { INDEX_DOC, jobIdOfDoc, rateLimiter, writtenKeys } from '../crdt/index.js'
import {
  ANNOUNCEMENT_DOMAIN, DEFAULT_ADMISSION_JOB_READS, DEFAULT_ADMISSION_MAX_JOB_READS, DEFAULT_ADMISSION_NEGATIVE_TTL_MS, INDEX_JOBS_MAP
} from './constants.js'
import { recordVerifier } from './signing.js'
import type { RecordVerifier } from './signing.js'
import type { RateLimitInit, UpdateVerdict } from '../crdt/index.js'
import type * as Y from 'yjs'

const log = logger('jobmesh:coord:admission')

export interface AdmissionComponents {
  /** Whether a PeerId is a registered node (the NodeRegistry on chain). */
  isRegistered(peerId: string): Promise<boolean>
  /** The open index doc, if any: a job's announcement names its creator's node. */
  index(): Y.Doc | undefined
  /**
   * Whether the escrow knows a job (any status but None). With it, a node that is not registered (a DApp's) may write
   * to the index only announcements of jobs the escrow knows; without it, anything the guard allows.
   */
  jobKnown?(jobId: string): Promise<boolean>
  verifier?: RecordVerifier
}

export interface AdmissionInit {
  /**
   * A "not registered" or "job not known" answer is cached this long (ms), so a node that registers, or a job created,
   * later gets in.
   */
  negativeTtlMs?: number
  /** The most announcements one update of the index by a node not registered may write. */
  maxJobReads?: number
  /** How many jobs not known yet each node not registered may have read on chain (a token bucket per node). */
  jobReads?: RateLimitInit
}

export interface Admission {
  /** Whether `peerId` may write and sync `docName`. */
  admit(peerId: string, docName: string): Promise<boolean>
  /** Whether an update of `docName` from `peerId` (admitted) may be applied (the doc store's `admitUpdate`). */
  admitUpdate(peerId: string, docName: string, update: Uint8Array): Promise<UpdateVerdict>
}

/** A yes/no answer per key: `ask` reads it (or answers from the cache), `sure` says whether a yes is cached. */
interface CachedAnswers {
  ask(key: string): Promise<boolean>
  sure(key: string): boolean
}

/**
 * A yes/no answer read once per key: yes for the life of the process, no for `negativeTtlMs`; concurrent reads of a
 * key share one call.
 */
function cachedAnswers (read: (key: string) => Promise<boolean>, negativeTtlMs: number): CachedAnswers {
  const yes = new Set<string>()
  const no = new Map<string, number>()
  const pending = new Map<string, Promise<boolean>>()
  const ask = async (key: string): Promise<boolean> => {
    if (yes.has(key)) return true
    const at = no.get(key)
    if (at != null && Date.now() - at < negativeTtlMs) return false
    let lookup = pending.get(key)
    if (lookup == null) {
      lookup = read(key).then(ok => {
        if (ok) {
          if (yes.size > 100_000) yes.clear()
          yes.add(key)
        } else {
          if (no.size > 10_000) no.clear()
          no.set(key, Date.now())
        }
        return ok
      }).finally(() => pending.delete(key))
      pending.set(key, lookup)
    }
    return await lookup
  }
  return { ask, sure: key => yes.has(key) }
}

/**
 * Who may write a doc (the doc store's `admit` and `admitUpdate`): the index doc is open to every peer (a DApp's node
 * announces its jobs there; its records are guarded per key, docs/crdt.md), but an update of it from a node that is
 * not registered is applied only when every announcement it writes names a job the escrow knows (with `jobKnown`):
 * announcements are free to sign, jobs cost a deposit. A job doc is open only to registered nodes and to the node that
 * announced the job (its creator's). Answers are cached: positive ones for the life of the process, negative ones
 * for {@link DEFAULT_ADMISSION_NEGATIVE_TTL_MS}; concurrent lookups of one peer or job share one call.
 */
export function createAdmission (components: AdmissionComponents, init: AdmissionInit = {}): Admission {
  const verifier = components.verifier ?? recordVerifier()
  const negativeTtlMs = init.negativeTtlMs ?? DEFAULT_ADMISSION_NEGATIVE_TTL_MS
  const maxJobReads = init.maxJobReads ?? DEFAULT_ADMISSION_MAX_JOB_READS
  const isRegistered = cachedAnswers(components.isRegistered, negativeTtlMs).ask
  const jobKnown = components.jobKnown == null ? undefined : cachedAnswers(components.jobKnown, negativeTtlMs)

  const reads = rateLimiter(init.jobReads ?? DEFAULT_ADMISSION_JOB_READS)

  /**
   * `yes` when every announcement an update of the index writes names a job the escrow knows; `later` when some job is
   * not known (yet: the chain this peer reads may lag the DApp's), when the update writes more than `maxJobReads`, or
   * when it cannot be placed (it builds on what this peer does not hold: an honest node re-broadcasting another's
   * writes may send such an update); `no` for a node past its budget of reads.
   */
  const announcesKnownJobs = async (peerId: string, known: CachedAnswers, update: Uint8Array): Promise<UpdateVerdict> => {
    const index = components.index()
    const keys = index == null ? undefined : writtenKeys(update, index)
    if (keys == null) return 'later'
    const jobs = [...keys.get(INDEX_JOBS_MAP) ?? []]
    if (jobs.length > maxJobReads) return 'later'
    for (const jobId of jobs) {
      if (!known.sure(jobId) && reads.take(peerId) !== 'ok') return 'no'
    }
    return (await Promise.all(jobs.map(known.ask))).every(Boolean) ? 'yes' : 'later'
  }

  const announcer = (jobId: string): string | undefined => {
    const value = components.index()?.getMap<Uint8Array>(INDEX_JOBS_MAP).get(jobId)
    return value instanceof Uint8Array ? verifier.verify(value, ANNOUNCEMENT_DOMAIN)?.signer : undefined
  }

  return {
    async admit (peerId, docName) {
      if (docName === INDEX_DOC) return true
      const key = jobIdOfDoc(docName)
      const jobId = key?.split('/')[0]
      if (jobId != null && announcer(jobId) === peerId) return true
      const ok = await isRegistered(peerId)
      if (!ok) log('%s is not a registered node: refused for %s', peerId, docName)
      return ok
    },
    async admitUpdate (peerId, docName, update) {
      if (docName !== INDEX_DOC || jobKnown == null || await isRegistered(peerId)) return 'yes'
      const verdict = await announcesKnownJobs(peerId, jobKnown, update)
      if (verdict !== 'yes') log('%s is not a registered node: its update of %s is refused (%s)', peerId, docName, verdict)
      return verdict
    }
  }
}
