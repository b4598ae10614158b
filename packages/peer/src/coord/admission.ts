import { logger } from '@libp2p/logger'
import { INDEX_DOC, jobIdOfDoc } from '../crdt/index.js'
import { ANNOUNCEMENT_DOMAIN, DEFAULT_ADMISSION_NEGATIVE_TTL_MS, INDEX_JOBS_MAP } from './constants.js'
import { recordVerifier } from './signing.js'
import type { RecordVerifier } from './signing.js'
import type * as Y from 'yjs'

const log = logger('jobmesh:coord:admission')

export interface AdmissionComponents {
  /** Whether a PeerId is a registered node (the NodeRegistry on chain). */
  isRegistered(peerId: string): Promise<boolean>
  /** The open index doc, if any: a job's announcement names its creator's node. */
  index(): Y.Doc | undefined
  verifier?: RecordVerifier
}

export interface AdmissionInit {
  /** A "not registered" answer is cached this long (ms), so a node that registers later gets in. */
  negativeTtlMs?: number
}

export interface Admission {
  /** Whether `peerId` may write and sync `docName`. */
  admit(peerId: string, docName: string): Promise<boolean>
}

/**
 * Who may write a doc (the doc store's `admit`): the index doc is open to every peer (a DApp's node announces its
 * jobs there; its records are guarded per key, docs/crdt.md); a job doc only to registered nodes and to the node that
 * announced the job (its creator's). Registration answers are cached: positive ones for the life of the process,
 * negative ones for {@link DEFAULT_ADMISSION_NEGATIVE_TTL_MS}; concurrent lookups of one peer share one call.
 */
export function createAdmission (components: AdmissionComponents, init: AdmissionInit = {}): Admission {
  const verifier = components.verifier ?? recordVerifier()
  const negativeTtlMs = init.negativeTtlMs ?? DEFAULT_ADMISSION_NEGATIVE_TTL_MS
  const registered = new Set<string>()
  const refused = new Map<string, number>()
  const pending = new Map<string, Promise<boolean>>()

  const isRegistered = async (peerId: string): Promise<boolean> => {
    if (registered.has(peerId)) return true
    const at = refused.get(peerId)
    if (at != null && Date.now() - at < negativeTtlMs) return false
    let lookup = pending.get(peerId)
    if (lookup == null) {
      lookup = components.isRegistered(peerId).then(ok => {
        if (ok) registered.add(peerId)
        else {
          if (refused.size > 10_000) refused.clear()
          refused.set(peerId, Date.now())
        }
        return ok
      }).finally(() => pending.delete(peerId))
      pending.set(peerId, lookup)
    }
    return lookup
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
    }
  }
}
