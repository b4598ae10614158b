import { logger } from '@libp2p/logger'
import { appendsOnly, INDEX_DOC, jobIdOfDoc, rateLimiter, writtenKeys } from '../crdt/index.js'
import { cachedAnswers } from './cached-answers.js'
import {
  ANNOUNCEMENT_DOMAIN, DEFAULT_ADMISSION_ALL_JOB_READS, DEFAULT_ADMISSION_JOB_READS, DEFAULT_ADMISSION_MAX_ANNOUNCEMENTS,
  DEFAULT_ADMISSION_NEGATIVE_TTL_MS, DEFAULT_ADMISSION_POSITIVE_TTL_MS, DEFAULT_ADMISSION_REGISTRY_READS, INDEX_JOBS_MAP, PEERS_MAP
} from './constants.js'
import { indexWriteVerdict, ownProfile } from './index-writes.js'
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
  /** A "registered" answer is cached this long (ms), so a node that withdraws stops being admitted. */
  positiveTtlMs?: number
  /** The most announcements one update of the index by a node not registered may write. */
  maxAnnouncements?: number
  /** How many jobs not known yet each node not registered may have read on chain (a token bucket per node). */
  jobReads?: RateLimitInit
  /** The same for all such nodes together (writer keys are free). */
  allJobReads?: RateLimitInit
  /**
   * How many PeerIds not asked about yet may be read in the registry, all together (a token bucket,
   * {@link DEFAULT_ADMISSION_REGISTRY_READS}); past it such a PeerId is not admitted, and asked about again later.
   */
  registryReads?: RateLimitInit
}

export interface Admission {
  /** Whether `peerId` may write and sync `docName`. */
  admit(peerId: string, docName: string): Promise<boolean>
  /** Whether an update of `docName` from `peerId` (admitted) may be applied (the doc store's `admitUpdate`). */
  admitUpdate(peerId: string, docName: string, update: Uint8Array): Promise<UpdateVerdict>
  /** Whether `peerId` is a registered node (cached as `admit` caches it): who may publish on a job's rooms. */
  registered(peerId: string): Promise<boolean>
}

/**
 * Who may write a doc (the doc store's `admit` and `admitUpdate`): the index doc is open to every peer (a DApp's node
 * announces its jobs there; its records are guarded per key, docs/crdt.md), but an update of it from a node that is
 * not registered is applied only when it only appends (`appendsOnly`) its own profile or announcements of jobs the
 * escrow knows (with `jobKnown`; `indexWriteVerdict`): announcements are free to sign, jobs cost a deposit. A job doc
 * is open only to registered nodes and to the node that announced the job (its creator's). Answers are cached: a job
 * known for the life of the process, a node registered for {@link DEFAULT_ADMISSION_POSITIVE_TTL_MS}, negative ones
 * for {@link DEFAULT_ADMISSION_NEGATIVE_TTL_MS}; concurrent lookups of one peer or job share one call.
 */
export function createAdmission (components: AdmissionComponents, init: AdmissionInit = {}): Admission {
  const verifier = components.verifier ?? recordVerifier()
  const negativeTtlMs = init.negativeTtlMs ?? DEFAULT_ADMISSION_NEGATIVE_TTL_MS
  const maxAnnouncements = init.maxAnnouncements ?? DEFAULT_ADMISSION_MAX_ANNOUNCEMENTS
  const isRegistered = budgetedRegistry(components.isRegistered, {
    negativeTtlMs, positiveTtlMs: init.positiveTtlMs ?? DEFAULT_ADMISSION_POSITIVE_TTL_MS
  }, init.registryReads ?? DEFAULT_ADMISSION_REGISTRY_READS)
  const writes = components.jobKnown == null
    ? undefined
    : {
        verifier,
        jobs: cachedAnswers(components.jobKnown, negativeTtlMs),
        reads: rateLimiter(init.jobReads ?? DEFAULT_ADMISSION_JOB_READS),
        allReads: rateLimiter(init.allJobReads ?? DEFAULT_ADMISSION_ALL_JOB_READS)
      }

  const announcer = (jobId: string): string | undefined => {
    const value = components.index()?.getMap<Uint8Array>(INDEX_JOBS_MAP).get(jobId)
    return value instanceof Uint8Array ? verifier.verify(value, ANNOUNCEMENT_DOMAIN)?.signer : undefined
  }

  return {
    registered: isRegistered,
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
      if (docName !== INDEX_DOC || writes == null) return 'yes'
      const index = components.index()
      const keys = index != null && appendsOnly(update, index) ? writtenKeys(update, index) : undefined
      // a profile is a registered node's (it publishes it once registered, peer-chain.ts): keys are free, so a profile
      // of anyone's was ~2 KB of index on every peer per fresh key. A node's own profile is checked against the chain
      // again (budgeted) when a no is cached: it was likely cached by the node's exchanges before it registered
      if (await isRegistered(peerId)) return 'yes'
      const profile = keys?.size === 1 ? keys.get(PEERS_MAP) : undefined
      if (profile != null && ownProfile(verifier, peerId, profile) && await isRegistered.again(peerId)) return 'yes'
      const verdict = keys == null ? 'later' : await indexWriteVerdict(writes, peerId, keys, maxAnnouncements)
      if (verdict !== 'yes') log('%s is not a registered node: its update of %s is held back', peerId, docName)
      return verdict
    }
  }
}

/**
 * `isRegistered`, cached (`cachedAnswers`) and budgeted: a PeerId not found registered before whose answer would be
 * read now takes a token of one bucket for all; without one it is not registered for now (not cached: the next ask may
 * read it).
 */
function budgetedRegistry (read: (peerId: string) => Promise<boolean>, ttl: { negativeTtlMs: number, positiveTtlMs: number },
  budget: RateLimitInit): BudgetedRegistry {
  const answers = cachedAnswers(read, ttl.negativeTtlMs, ttl.positiveTtlMs)
  const reads = rateLimiter(budget)
  const ask = async (peerId: string): Promise<boolean> => {
    // a node found registered before is read again whatever the budget: a flood of fresh authors must not shut it out
    if (answers.due(peerId) && !answers.saidYes(peerId) && reads.take('all') !== 'ok') {
      log('%s: no registry read left for a PeerId not asked about yet: not admitted for now', peerId)
      return false
    }
    return await answers.ask(peerId)
  }
  return Object.assign(ask, {
    again: async (peerId: string): Promise<boolean> => {
      answers.forgetNo(peerId)
      return await ask(peerId)
    }
  })
}

/** `isRegistered`, cached and budgeted; `again` reads a PeerId with a cached no once more (within the budget). */
interface BudgetedRegistry {
  (peerId: string): Promise<boolean>
  again(peerId: string): Promise<boolean>
}
