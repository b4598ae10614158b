import { INDEX_DOC, jobIdOfDoc } from '../crdt/index.js'
import {
  ANNOUNCEMENT_DOMAIN, FAILURES_MAP, FINAL_DOMAIN, FINAL_MAP, INDEX_JOBS_MAP, MACRO_MAP, MICRO_MAP, PEERS_MAP, PROFILE_DOMAIN,
  RESULTS_MAP, SUMMARY_MAP
} from './constants.js'
import { announcementKey, failureScope, macroScope, microScope, parseResultKey, resultScope, resultSlot, summaryScope } from './keys.js'
import { decodeSignedRecord } from '../protocol/index.js'
import { readResults } from './results.js'
import { recordVerifier } from './signing.js'
import type { DocGuard, DocGuards, KeyChange } from '../crdt/index.js'
import type { RecordVerifier, VerifiedRecord } from './signing.js'
import type * as Y from 'yjs'

/** How the records of one map are verified and which changes of a valid record are allowed. */
interface MapRule {
  /** Signing domain of the record under `key`, or undefined when the key is malformed. */
  domain(key: string): string | undefined
  /** Whether `signer` may write `key`. */
  owner(key: string, signer: string): boolean
  /** Whether a record's payload belongs under `key`. Default: any. */
  fits?(key: string, payload: Uint8Array): boolean
  /** A valid record replaced by another valid record of a different signer. Default: never. */
  replace?(previous: VerifiedRecord, next: VerifiedRecord): boolean
  /** A valid record deleted. Default: never. */
  remove?(key: string, previous: VerifiedRecord, doc: Y.Doc): boolean
  /**
   * A deletion allowed whatever the previous value was, decided before (and instead of) checking its signature: the
   * check is the costly part, and when this says yes, a valid previous record would be allowed to go too.
   */
  removable?(key: string, oldValue: unknown, doc: Y.Doc): boolean
}

const anyone = (): boolean => true
const slotOwner = (key: string, signer: string): boolean => parseResultKey(key)?.slot === resultSlot(signer)
const keyOwner = (key: string, signer: string): boolean => key === signer

/**
 * A lease may pass to any valid lease: claims after expiry, concurrent claims of rival queues (Yjs may order a
 * lower term last) and failovers all replace another peer's lease, and an honest peer must never be penalized.
 * What a lease decides is fenced by terms elsewhere (docs/coordination.md).
 */
const leaseReplace = (): boolean => true

function jobRules (roundKey: string, verifier: RecordVerifier): Map<string, MapRule> {
  const perMicro = (scope: string) => (key: string): string | undefined => {
    const parsed = parseResultKey(key)
    return parsed == null ? undefined : `${scope}/${parsed.micro}`
  }
  const results = resultScope(roundKey)
  return new Map<string, MapRule>([
    [MACRO_MAP, { domain: key => `${macroScope(roundKey)}/${key}`, owner: anyone, replace: leaseReplace }],
    [MICRO_MAP, {
      domain: key => `${microScope(roundKey)}/${key}`,
      owner: anyone,
      replace: leaseReplace,
      // the holder deletes its lease in the transaction that writes its result (docs/coordination.md)
      remove: (key, previous, doc) => holdsResult(verifier, results, doc.getMap<Uint8Array>(RESULTS_MAP), key, previous.signer),
      // a lease whose claimed signer has a result for it may go, valid or not: reading the signer costs no signature
      // check, and every peer of the job deletes b leases per queue turn
      removable: (key, oldValue, doc) => {
        const signer = claimedSigner(oldValue)
        return signer != null && holdsResult(verifier, results, doc.getMap<Uint8Array>(RESULTS_MAP), key, signer)
      }
    }],
    [RESULTS_MAP, { domain: perMicro(results), owner: slotOwner }],
    [FAILURES_MAP, { domain: perMicro(failureScope(roundKey)), owner: slotOwner }],
    [FINAL_MAP, { domain: key => `${FINAL_DOMAIN}/${roundKey}/${key}`, owner: keyOwner }],
    // any peer of the room may say its MacroJob finished; the summary is a hint, the results decide (progress.ts)
    [SUMMARY_MAP, { domain: key => `${summaryScope(roundKey)}/${key}`, owner: anyone, replace: () => true }]
  ])
}

/** Whether `signer` has a valid result for MicroJob `micro` (`m.i`): its one-MicroJob record or one of its turn records. */
function holdsResult (verifier: RecordVerifier, scope: string, map: Y.Map<Uint8Array>, micro: string, signer: string): boolean {
  const slot = resultSlot(signer)
  const own = `${micro}/${slot}`
  if (readResults(verifier, scope, own, map.get(own))?.get(micro)?.signer === signer) return true
  const turns = `${micro.slice(0, micro.indexOf('.'))}@`
  for (const [key, value] of map.entries()) {
    if (key.startsWith(turns) && key.endsWith(`/${slot}`) && readResults(verifier, scope, key, value)?.get(micro)?.signer === signer) return true
  }
  return false
}

/** The signer a record names, without checking its signature (undefined for anything that is not a record). */
function claimedSigner (value: unknown): string | undefined {
  if (!(value instanceof Uint8Array)) return undefined
  try {
    return decodeSignedRecord(value).signer
  } catch {
    return undefined
  }
}

function indexRules (): Map<string, MapRule> {
  return new Map<string, MapRule>([
    // announcements are re-signed by whoever announces a later round (settlement): any valid one of the same job may
    // replace another (one of another job is not valid under this key)
    [INDEX_JOBS_MAP, { domain: () => ANNOUNCEMENT_DOMAIN, owner: anyone, fits: (key, payload) => announcementKey(payload) === key, replace: () => true }],
    [PEERS_MAP, { domain: key => `${PROFILE_DOMAIN}/${key}`, owner: keyOwner }]
  ])
}

function ruleGuard (rules: Map<string, MapRule>, verifier: RecordVerifier): DocGuard {
  const verify = (rule: MapRule, key: string, value: unknown): VerifiedRecord | undefined => {
    if (!(value instanceof Uint8Array)) return undefined
    const domain = rule.domain(key)
    if (domain == null) return undefined
    const record = verifier.verify(value, domain)
    return record != null && rule.owner(key, record.signer) && rule.fits?.(key, record.payload) !== false ? record : undefined
  }
  return {
    allows (change: KeyChange, doc: Y.Doc): boolean {
      const rule = rules.get(change.map)
      if (rule == null) return true // a map nobody reads
      if (change.action === 'delete' && rule.removable?.(change.key, change.oldValue, doc) === true) return true
      const previous = verify(rule, change.key, change.oldValue)
      if (previous == null) return true // nothing valid was there: nothing is lost
      if (change.action === 'delete') return rule.remove?.(change.key, previous, doc) === true
      const next = verify(rule, change.key, change.newValue)
      if (next == null) return false // a valid record replaced by junk, a forgery or another owner's record
      return next.signer === previous.signer || rule.replace?.(previous, next) === true
    }
  }
}

/**
 * The ownership rules of jobmesh's docs (docs/crdt.md, Ownership): in a job doc a valid result, failure or final
 * record can only be replaced by its signer and never deleted; a valid lease can be replaced by another valid lease
 * and deleted only together with its holder's result; in the index a profile
 * only by its peer, an announcement only by another valid announcement. Replacing a valid record by anything
 * invalid is always forbidden. Maps nobody reads are not guarded.
 */
export function coordGuards (verifier: RecordVerifier = recordVerifier()): DocGuards {
  const index = ruleGuard(indexRules(), verifier)
  const jobs = new Map<string, DocGuard>()
  return (name: string) => {
    if (name === INDEX_DOC) return index
    const roundKey = jobIdOfDoc(name)
    if (roundKey == null) return undefined
    let guard = jobs.get(roundKey)
    if (guard == null) {
      if (jobs.size > 1_000) jobs.clear()
      guard = ruleGuard(jobRules(roundKey, verifier), verifier)
      jobs.set(roundKey, guard)
    }
    return guard
  }
}
