import { microKey, parseResultKey, resultKey, resultScope, resultSlot } from './keys.js'
import { ResultRecord } from './pb/coord.js'
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
}

export interface ResultsComponents {
  signer: RecordSigner
  verifier: RecordVerifier
  metrics?: CoordMetrics
}

/** Signed results of one job, in its `results` map. */
export interface ResultTable {
  /** Writes this peer's result for a MicroJob (its own slot). */
  write(macroIndex: number, index: number, result: Omit<Result, 'signer'>): void
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

export function resultTable (components: ResultsComponents, map: Y.Map<Uint8Array>, jobId: string): ResultTable {
  const scope = resultScope(jobId)
  const self = components.signer.peerId
  const read = (key: string, micro: string): Result | undefined => {
    const value = map.get(key)
    if (!(value instanceof Uint8Array)) {
      return undefined
    }
    const record = components.verifier.verify(value, `${scope}/${micro}`)
    const parsed = parseResultKey(key)
    if (record == null || parsed == null || resultSlot(record.signer) !== parsed.slot) {
      if (components.metrics != null) {
        components.metrics.invalidRecords++
      }
      return undefined
    }
    try {
      const r = ResultRecord.decode(record.payload)
      return { signer: record.signer, term: r.term, outputHash: r.outputHash, size: r.size, outputCid: r.outputCid }
    } catch {
      return undefined
    }
  }
  const list = (macroIndex: number, index: number): Result[] => {
    const micro = microKey(macroIndex, index)
    const prefix = `${micro}/`
    const out: Result[] = []
    for (const key of map.keys()) {
      if (key.startsWith(prefix)) {
        const r = read(key, micro)
        if (r != null) {
          out.push(r)
        }
      }
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
        outputCid: result.outputCid
      })
      map.set(resultKey(macroIndex, index, self), components.signer.sign(`${scope}/${micro}`, payload))
    },
    list,
    counting: (macroIndex, index, lease) => countingResult(list(macroIndex, index), lease),
    doneKeys () {
      const out = new Set<string>()
      for (const key of map.keys()) {
        const parsed = parseResultKey(key)
        if (parsed != null && !out.has(parsed.micro) && read(key, parsed.micro) != null) {
          out.add(parsed.micro)
        }
      }
      return out
    }
  }
}
