import { keyIndex, microKey, parseResultKey, resultKey, resultScope, resultSlot, turnMacroIndex, turnName, turnResultKey } from './keys.js'
import { ResultRecord, TurnResults } from './pb/coord.js'
import { signTrusted } from './signing.js'
import type { Lease } from './leases.js'
import type { CoordMetrics } from './metrics.js'
import type { RecordSigner, RecordVerifier } from './signing.js'
import type * as Y from 'yjs'

/** A verified result. */
export interface Result {
  signer: string
  /** The MicroJob lease term it was produced under (fencing token). */
  term: number
  outputHash: Uint8Array
  size: number
  outputCid?: string
  /** `workTag(execution digest, signer)` (protocol/work-tag.ts): absent in a record that proves no run. */
  workTag?: Uint8Array
}

export interface ResultsComponents {
  signer: RecordSigner
  verifier: RecordVerifier
  metrics?: CoordMetrics
}

/** One MicroJob's result in a turn record. */
export interface TurnItem extends Omit<Result, 'signer'> {
  /** The MicroJob's index in its MacroJob. */
  index: number
}

/** How many MicroJobs MacroJob `macroIndex` has (undefined: unknown, no range check). */
export type MacroSize = (macroIndex: number) => number | undefined

/** A record's verified, decoded results, and where it was read (scope and key: the signing domain and the slot). */
interface Decoded { at: string, results: Map<string, Result> | undefined }

/**
 * Verified, decoded results per verifier, per record bytes and where they were read, as Yjs hands back the same bytes
 * object for an unchanged value. Kept whole: each reader applies its own range (`size`) to it. Per verifier, since
 * verifiers disagree: a later round's excludes the submitters slashed before it, and a record the doc guard accepted
 * with the plain one counted for that round's progress when the two shared one table.
 */
const decoded = new WeakMap<RecordVerifier, WeakMap<Uint8Array, Decoded>>()

function decodedBy (verifier: RecordVerifier): WeakMap<Uint8Array, Decoded> {
  let table = decoded.get(verifier)
  if (table === undefined) {
    table = new WeakMap()
    decoded.set(verifier, table)
  }
  return table
}

/**
 * Verifies and decodes the record under a `results` key (a one-MicroJob ResultRecord under `m.i/slot`, or a turn's
 * TurnResults under `m@first.term/slot`): its results by MicroJob key (`m.i`), or undefined when the record is not
 * valid there (bad signature, another signer's slot, malformed). MicroJobs outside their MacroJob (`size`) are left out.
 */
export function readResults (verifier: RecordVerifier, scope: string, key: string, value: unknown, size?: MacroSize): Map<string, Result> | undefined {
  const parsed = parseResultKey(key)
  if (!(value instanceof Uint8Array) || parsed == null) return undefined
  const domain = `${scope}/${parsed.micro}`
  const at = `${scope}/${key}`
  const table = decodedBy(verifier)
  let hit = table.get(value)
  if (hit?.at !== at) {
    const record = verifier.verify(value, domain)
    let results: Map<string, Result> | undefined
    if (record != null && resultSlot(record.signer) === parsed.slot) {
      try {
        results = decodeResults(parsed.micro, record.signer, record.payload)
      } catch {
        results = undefined
      }
    }
    hit = { at, results }
    table.set(value, hit)
  }
  return size == null || hit.results == null ? hit.results : inside(hit.results, size)
}

/** The results of MicroJobs inside their MacroJob (the same map when all are). */
function inside (results: Map<string, Result>, size: MacroSize): Map<string, Result> {
  const keep = [...results].filter(([micro]) => inRange(micro, size))
  return keep.length === results.size ? results : new Map(keep)
}

function decodeResults (name: string, signer: string, payload: Uint8Array): Map<string, Result> {
  const out = new Map<string, Result>()
  const m = turnMacroIndex(name)
  if (m == null) {
    const r = ResultRecord.decode(payload)
    if (inRange(name)) out.set(name, { signer, term: r.term, outputHash: r.outputHash, size: r.size, outputCid: r.outputCid, workTag: r.workTag })
    return out
  }
  for (const r of TurnResults.decode(payload).items) {
    out.set(microKey(m, r.index), { signer, term: r.term, outputHash: r.outputHash, size: r.size, outputCid: r.outputCid, workTag: r.workTag })
  }
  return out
}

/** Whether a MicroJob key (`m.i`) names a MicroJob, inside its MacroJob when `size` is known. */
function inRange (micro: string, size?: MacroSize): boolean {
  const parts = micro.split('.')
  const [macroIndex, index] = parts.map(keyIndex)
  if (parts.length !== 2 || macroIndex == null || index == null) return false
  const n = size?.(macroIndex)
  return n == null || index < n
}

/** The MicroJobs (`m.i`) of job `jobId` with at least one valid result in `map` (a reader's view: no signer needed). */
export function doneMicroJobs (map: Y.Map<Uint8Array>, jobId: string, verifier: RecordVerifier, size?: MacroSize): Set<string> {
  const scope = resultScope(jobId)
  const out = new Set<string>()
  for (const [key, value] of map.entries()) {
    for (const micro of readResults(verifier, scope, key, value, size)?.keys() ?? []) out.add(micro)
  }
  return out
}

/** Signed results of one job, in its `results` map. */
export interface ResultTable {
  /** Writes this peer's result for one MicroJob (its own slot): a one-MicroJob record. */
  write(macroIndex: number, index: number, result: Omit<Result, 'signer'>): void
  /** Writes this peer's results of one queue turn in MacroJob `macroIndex`: one signed record for all of them. */
  writeTurn(macroIndex: number, items: TurnItem[]): void
  /** All valid results of a MicroJob. */
  list(macroIndex: number, index: number): Result[]
  /** The result that counts, given the MicroJob's current lease (see {@link countingResult}). */
  counting(macroIndex: number, index: number, lease: Lease | undefined): Result | undefined
  /** MicroJob keys (`m.i`) that have at least one valid result. */
  doneKeys(): Set<string>
}

/**
 * Fencing rule: a result produced under the current lease term by the lease holder counts; otherwise (no
 * current-term result) the result with the highest term counts. Each MicroJob counts once.
 */
export function countingResult (results: Result[], lease: Lease | undefined): Result | undefined {
  let best: Result | undefined
  for (const r of results) {
    if (lease != null && r.term === lease.term && r.signer === lease.owner) {
      return r
    }
    if (best == null || r.term > best.term || (r.term === best.term && r.signer < best.signer)) {
      best = r
    }
  }
  return best
}

export function resultTable (components: ResultsComponents, map: Y.Map<Uint8Array>, jobId: string, size?: MacroSize): ResultTable {
  const scope = resultScope(jobId)
  const self = components.signer.peerId
  const read = (key: string): Map<string, Result> | undefined => {
    const results = readResults(components.verifier, scope, key, map.get(key), size)
    if (results == null && components.metrics != null) components.metrics.invalidRecords++
    return results
  }
  const list = (macroIndex: number, index: number): Result[] => {
    const micro = microKey(macroIndex, index)
    const own = `${micro}/`
    const turns = `${macroIndex}@`
    const out: Result[] = []
    for (const key of map.keys()) {
      if (!key.startsWith(own) && !key.startsWith(turns)) continue
      const r = read(key)?.get(micro)
      if (r != null) out.push(r)
    }
    return out
  }
  return {
    write (macroIndex, index, result) {
      const micro = microKey(macroIndex, index)
      const payload = ResultRecord.encode({
        term: result.term,
        outputHash: result.outputHash as Uint8Array<ArrayBuffer>,
        size: result.size,
        outputCid: result.outputCid,
        workTag: result.workTag as Uint8Array<ArrayBuffer> | undefined
      })
      map.set(resultKey(macroIndex, index, self), signTrusted(components, `${scope}/${micro}`, payload))
    },
    writeTurn (macroIndex, items) {
      if (items.length === 0) return
      const name = turnName(macroIndex, items[0].index, items[0].term)
      const payload = TurnResults.encode({
        items: items.map(r => ({
          index: r.index, term: r.term, outputHash: r.outputHash as Uint8Array<ArrayBuffer>, size: r.size, outputCid: r.outputCid, workTag: r.workTag as Uint8Array<ArrayBuffer> | undefined
        }))
      })
      map.set(turnResultKey(macroIndex, items[0].index, items[0].term, self), signTrusted(components, `${scope}/${name}`, payload))
    },
    list,
    counting: (macroIndex, index, lease) => countingResult(list(macroIndex, index), lease),
    doneKeys: () => doneMicroJobs(map, jobId, components.verifier, size)
  }
}
