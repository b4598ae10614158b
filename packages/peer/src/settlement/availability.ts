import { logger } from '@libp2p/logger'
import { DEFAULT_OUTPUT_CONCURRENCY, DEFAULT_OUTPUT_FETCH_TIMEOUT_MS, RERUN_TIMEOUT_MS } from './constants.js'
import { mapBounded } from './bounded.js'
import { OutputMismatchError, OutputUnavailableError } from './errors.js'
import { microKey } from '../coord/index.js'
import { outputHash } from '../executor/index.js'
import { MAX_MICROJOB_OUTPUT_BYTES, microJobOutputBound } from '../protocol/index.js'
import type { ManifestEntry } from './manifest.js'
import type { SettlementComponents } from './types.js'
import type { JobSpec } from '../protocol/index.js'

const log = logger('jobmesh:settlement:availability')

export interface EnsureOutputsOptions {
  signal?: AbortSignal
  /** How long one output may take to arrive from the network before it is regenerated (ms), default 10 000. */
  fetchTimeoutMs?: number
  /** Outputs handled at once, default 8. */
  concurrency?: number
  /**
   * This node, when it may stand in for a wrong recorded result: an output it had to re-run (nobody served the
   * recorded one) that hashes to something else becomes this node's own result (its output, its PeerId as `signer`,
   * its `payee`) and is listed in `replaced`. Without it such an output fails with OutputMismatchError.
   */
  replaceAs?: { signer: string, payee: string }
  /**
   * Fetch each output with its entry's `size` as the limit (the replication server's use: the sizes are what it
   * budgeted); a larger output is not held (and regenerated, or failed, as one that did not arrive).
   */
  limitToSize?: boolean
}

export interface EnsureOutputsResult {
  /** The entries, each naming the CID this node now holds (pinned) for its output. */
  entries: ManifestEntry[]
  /** Outputs found locally or fetched from peers. */
  fetched: number
  /** Outputs nobody served in time, re-run with the executor (same sha256, or replaced). */
  regenerated: number
  /**
   * Entries whose recorded output nobody served and whose re-run hashes differently (a processor faked it and
   * withheld the bytes): as this node now holds them, with its own re-run's output and `replaceAs` as signer and payee.
   */
  replaced: ManifestEntry[]
  /** The execution digest of each re-run, by MicroJob key (`m.i`): what checks a work tag (`isWorkTag`). */
  digests: Map<string, string>
}

/**
 * Makes this node hold every output of a manifest (docs/settlement.md, Availability): each output is fetched by its
 * CID (locally, else over bitswap, within `fetchTimeoutMs`), its sha256 checked against the entry, and stored and
 * pinned with `addOutput`. An output nobody serves in time (its processor died) is regenerated: job code is
 * deterministic WebAssembly, so the MicroJob is re-run with the executor and its output must hash to the recorded
 * `outputHash` (without an executor or a spec, a missing output fails); with `replaceAs`, one that hashes to anything
 * else replaces the recorded result (the recorded one cannot be backed with bytes, and a wrong result that nobody serves
 * must not stall the job). Idempotent: outputs already held are read locally and pinned again (a no-op).
 *
 * @throws OutputMismatchError (a regenerated output differs: the recorded result is not trustworthy),
 * OutputUnavailableError (not fetched and not regenerated), AbortError
 */
export async function ensureOutputs (components: { store: Pick<SettlementComponents['store'], 'fetch' | 'addOutput'>, executor?: SettlementComponents['executor'] }, jobId: string, spec: JobSpec | undefined,
  entries: readonly ManifestEntry[], options: EnsureOutputsOptions = {}): Promise<EnsureOutputsResult> {
  const { store, executor } = components
  const timeoutMs = options.fetchTimeoutMs ?? DEFAULT_OUTPUT_FETCH_TIMEOUT_MS
  let fetched = 0
  let regenerated = 0

  // no output of the job is larger than its bound (the spec's, else what any run may output): a larger one is not fetched
  const bound = spec == null ? MAX_MICROJOB_OUTPUT_BYTES : microJobOutputBound(spec)
  const fetchOutput = async (e: ManifestEntry, signal: AbortSignal): Promise<Uint8Array | undefined> => {
    try {
      const maxBytes = options.limitToSize === true ? Math.min(e.size, bound) : bound
      const bytes = await store.fetch(`ipfs://${e.outputCid}`, { timeoutMs, signal, maxBytes })
      const actual = outputHash(bytes)
      if (actual === e.outputHash.toLowerCase()) return bytes
      log('output of %s %d.%d at %s hashes to %s, not %s', jobId, e.macroIndex, e.index, e.outputCid, actual, e.outputHash)
    } catch (err) {
      if (signal.aborted) throw err
      log('output of %s %d.%d (%s) not fetched: %s', jobId, e.macroIndex, e.index, e.outputCid, (err as Error).message)
    }
    return undefined
  }

  /** The re-run's output; its entry is `e`, or this node's own result when the recorded hash is wrong (`replaceAs`). */
  const digests = new Map<string, string>()
  const regenerate = async (e: ManifestEntry, signal: AbortSignal): Promise<{ bytes: Uint8Array, entry: ManifestEntry }> => {
    if (executor == null || spec == null) {
      throw new OutputUnavailableError(e.macroIndex, e.index, `output of MicroJob ${e.macroIndex}.${e.index} of ${jobId} is unavailable and this node cannot regenerate it`)
    }
    let bytes: Uint8Array
    try {
      const run = await executor.run({
        jobId, spec, macroIndex: e.macroIndex, index: e.index, microId: e.microId, start: e.start, end: e.end
      }, { signal, timeoutMs: RERUN_TIMEOUT_MS })
      bytes = run.output
      digests.set(microKey(e.macroIndex, e.index), run.digest)
    } catch (err) {
      if (signal.aborted) throw err
      throw new OutputUnavailableError(e.macroIndex, e.index, `output of MicroJob ${e.macroIndex}.${e.index} of ${jobId} is unavailable and re-running it failed: ${(err as Error).message}`, { cause: err })
    }
    const actual = outputHash(bytes)
    if (actual === e.outputHash.toLowerCase()) return { bytes, entry: e }
    const err = new OutputMismatchError(e.macroIndex, e.index, e.outputHash.toLowerCase(), actual)
    if (options.replaceAs == null) {
      log.error('%s of %s (signer %s): not submitting a result that cannot be backed', err.message, jobId, e.signer)
      throw err
    }
    log.error('%s of %s (signer %s, output withheld): this node\'s re-run stands in for it', err.message, jobId, e.signer)
    return { bytes, entry: { ...e, outputHash: actual, ...options.replaceAs } }
  }

  const handle = async (e: ManifestEntry, signal: AbortSignal): Promise<ManifestEntry> => {
    let bytes = await fetchOutput(e, signal)
    let entry = e
    if (bytes != null) {
      fetched++
    } else {
      ({ bytes, entry } = await regenerate(e, signal))
      regenerated++
      log('regenerated output of %s %d.%d (%d bytes)', jobId, e.macroIndex, e.index, bytes.byteLength)
    }
    const cid = await store.addOutput(bytes, { signal })
    if (cid !== entry.outputCid) log('output of %s %d.%d held as %s (recorded %s)', jobId, e.macroIndex, e.index, cid, entry.outputCid)
    return { ...entry, outputCid: cid, size: bytes.byteLength }
  }

  // the first failure stops the other workers: the finalization fails anyway
  const out = await mapBounded(entries, options.concurrency ?? DEFAULT_OUTPUT_CONCURRENCY, handle, options.signal)
  log('%s: %d outputs held (%d fetched, %d regenerated)', jobId, entries.length, fetched, regenerated)
  const replaced = out.filter((e, slot) => e.outputHash !== entries[slot].outputHash.toLowerCase())
  return { entries: out, fetched, regenerated, replaced, digests }
}
