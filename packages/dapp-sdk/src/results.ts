import { anySignal, timeoutSignal } from '@jobmesh/contracts'
import { createHash } from 'node:crypto'
import { failedForCertain, leases, macroDocs, microKey, recordSigner } from '@jobmesh/peer/coord'
import { roundDocName } from '@jobmesh/peer/crdt'
import { resultTree, sliceJob, toHex } from '@jobmesh/peer/protocol'
import { payeeResolver, roundKey } from '@jobmesh/peer/jobs'
import { isoSeconds } from '@jobmesh/peer/observe'
import { rawOutputCid } from '@jobmesh/peer/storage'
import { ZeroHash } from 'ethers'
import { CID } from 'multiformats/cid'
import { fetchContent } from './content.js'
import {
  AbortError, DownloadError, ResultHashMismatchError, ResultNotFoundError, ResultRootMismatchError, ResultUnavailableError, TimeoutError
} from './errors.js'
import { chainNow, connectedToNobody, loadEscrowJob, loadSpec } from './job-info.js'
import { loadManifest } from './manifest.js'
import { openJobDoc, roundFailures, roundVerifier } from './progress.js'
import type { ClientContext } from './context.js'
import type { RecordVerifier } from '@jobmesh/peer/coord'
import type { MicroJobDescriptor, ResultLeaf } from '@jobmesh/peer/protocol'
import type { EscrowJobState } from '@jobmesh/contracts'

/** One MicroJob's verified output. */
export interface MicroJobOutput {
  macroIndex: number
  index: number
  microId: string
  /** Block range `[start, end)` of the input it covers. */
  start: number
  end: number
  /** sha256 of `bytes`, 0x hex. */
  outputHash: string
  /** Where it was fetched from. */
  cid: string
  /** The peer whose result counted. */
  signer: string
  bytes: Uint8Array
}

export interface ResultsOptions {
  signal?: AbortSignal
  /**
   * Per-output fetch timeout (ms); default the client's `fetchTimeoutMs`. An output no peer serves within it fails
   * the call with `ResultUnavailableError`.
   */
  fetchTimeoutMs?: number
  /** Timeout of the whole call (ms): `TimeoutError` after it. Default none (every step has its own timeout). */
  timeoutMs?: number
  /** Called after each verified output (in completion order). */
  onOutput?(output: MicroJobOutput, fetched: number, total: number): void
}

/** The output a MicroJob should have, and where to fetch it. */
interface Picked {
  d: MicroJobDescriptor
  /** 0x sha256, lower case. */
  outputHash: string
  outputCid?: string
  signer: string
}

/**
 * Downloads and verifies every MicroJob's output (see {@link JobClient.results}).
 */
export async function downloadResults (ctx: ClientContext, jobId: string, options: ResultsOptions = {}): Promise<MicroJobOutput[]> {
  const id = jobId.toLowerCase()
  const failed = new AbortController()
  const overall = options.timeoutMs === undefined ? undefined : timeoutSignal(options.timeoutMs)
  const signal = anySignal([options.signal, ctx.stopped, failed.signal, overall])
  const release = await ctx.jobDocs.hold(id)
  try {
    return await download(ctx, id, signal, failed, options)
  } catch (err) {
    if (overall?.aborted === true && options.signal?.aborted !== true && !ctx.stopped.aborted) {
      const nobody = connectedToNobody(ctx)
      throw new TimeoutError(`results of ${id} not complete within ${String(options.timeoutMs)} ms${nobody === undefined ? '' : `: ${nobody}`}`, { cause: err })
    }
    throw err
  } finally {
    await release()
  }
}

async function download (ctx: ClientContext, id: string, signal: AbortSignal, failed: AbortController,
  options: ResultsOptions): Promise<MicroJobOutput[]> {
  const [job, known] = await Promise.all([loadEscrowJob(ctx, id, signal), loadSpec(ctx, id, signal, options.fetchTimeoutMs)])
  const { microJobs } = sliceJob(known.spec, id)
  // the current round (rejections on chain): its doc, its signing scope, without the slashed submitters' results
  const round = job.rejections
  const verifier = await roundVerifier(ctx, id, round, signal)
  const self = ctx.node.peerId.toString()
  const signer = recordSigner(ctx.node.privateKey, self)
  const { results, microLeases, open } = macroDocs({ signer, verifier, docs: ctx.docs, leases: leases({ signer, verifier }) }, {
    roundDoc: roundDocName(id, round),
    jobKey: roundKey(id, round)
  })

  // the submitter's manifest (checked against the escrow's resultRoot) when there is one, else the round's MacroJob docs
  const manifest = job.resultRoot !== ZeroHash ? await loadManifest(ctx, id, job.resultRoot, microJobs, signal) : undefined
  // without a manifest the records are read from the MacroJobs' docs (each with its catch-up): read, not followed, so
  // that the peers holding them do not each exchange with this client on its subscription
  if (manifest === undefined) {
    const docSignal = anySignal([signal], ctx.settings.docTimeoutMs)
    await Promise.all(Array.from({ length: job.macroJobs }, async (_, m) => await open(m, { signal: docSignal, follow: false })))
  }
  const counting = (d: MicroJobDescriptor): ReturnType<typeof results.counting> => results.counting(d.macroIndex, d.index, microLeases.get(microKey(d.macroIndex, d.index)))
  const missing = manifest === undefined ? microJobs.find(d => counting(d) === undefined) : undefined
  if (missing !== undefined) {
    const done = microJobs.filter(d => counting(d) !== undefined).length
    const failed = await failedText(ctx, id, job, verifier, done, signal)
    throw new ResultNotFoundError(`MicroJob ${missing.macroIndex}.${missing.index} of ${id} has no result${failed ?? await noneText(ctx, job, signal)}`)
  }
  const picked: Picked[] = manifest !== undefined
    ? manifest.microJobs.map((e, g) => ({ d: microJobs[g], outputHash: e.outputHash.toLowerCase(), outputCid: e.outputCid, signer: e.signer }))
    : microJobs.map((d) => {
      const r = counting(d)!
      return { d, outputHash: toHex(r.outputHash), outputCid: r.outputCid, signer: r.signer }
    })

  // the results the submitter committed to on chain must be these
  if (manifest === undefined && job.resultRoot !== ZeroHash) {
    // each leaf pays the signer's wallet, by the rule the finalizer and the verifiers use (payeeOf)
    const payee = payeeResolver({ chain: ctx.chain.client }, { signal })
    const leaves: ResultLeaf[] = []
    for (const { d, outputHash, signer } of picked) {
      leaves.push({ microId: d.microId, macroIndex: d.macroIndex, index: d.index, outputHash, payee: await payee(signer) })
    }
    const root = resultTree(leaves).root
    if (root.toLowerCase() !== job.resultRoot.toLowerCase()) {
      throw new ResultRootMismatchError(`the results in the round's MacroJob docs give resultRoot ${root}, the escrow holds ${job.resultRoot}`)
    }
  }

  const out: MicroJobOutput[] = new Array(picked.length)
  let next = 0
  let fetched = 0
  const fetchOne = async ({ d, outputHash: expected, outputCid, signer }: Picked, slot: number): Promise<void> => {
    let cid: string
    try {
      cid = outputCid !== undefined && outputCid !== ''
        ? CID.parse(outputCid.replace(/^ipfs:\/\//, '')).toString()
        : rawOutputCid(expected)
    } catch (err) {
      throw new DownloadError(`MicroJob ${d.macroIndex}.${d.index}: invalid output CID ${String(outputCid)}`, { cause: err })
    }
    const timeoutMs = options.fetchTimeoutMs ?? ctx.settings.fetchTimeoutMs
    const timeout = timeoutSignal(timeoutMs)
    let bytes: Uint8Array
    try {
      bytes = await fetchContent(ctx.store, cid, { signal: anySignal([signal, timeout]), timeoutMs })
    } catch (err) {
      // the per-output timeout, not the caller: nobody online serves this output
      if (timeout.aborted && !signal.aborted && (err as Error).name === AbortError.name) {
        throw new ResultUnavailableError(d.macroIndex, d.index, cid, timeoutMs, { cause: err })
      }
      throw err
    }
    const actual = `0x${createHash('sha256').update(bytes).digest('hex')}`
    if (actual !== expected) throw new ResultHashMismatchError(d.macroIndex, d.index, expected, actual)
    const output: MicroJobOutput = {
      macroIndex: d.macroIndex, index: d.index, microId: d.microId, start: d.start, end: d.end,
      outputHash: actual, cid, signer, bytes
    }
    out[slot] = output
    fetched++
    options.onOutput?.(output, fetched, picked.length)
  }
  const worker = async (): Promise<void> => {
    while (next < picked.length && !failed.signal.aborted) {
      const slot = next++
      try {
        await fetchOne(picked[slot], slot)
      } catch (err) {
        failed.abort(err)
        throw err
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(ctx.settings.downloadConcurrency, picked.length) }, worker))
  return out
}

/**
 * After "has no result": `yet` while the job can still get one; why it never will once the escrow is done with it, or
 * once its deadline passed unreleased (by the chain's clock: no peer works on it then, and its creator may refund it).
 */
/**
 * Why a missing result will not come, when the round's doc shows the job failed beyond doubt (`failedForCertain`: the
 * peers gave it up, as `progress` ends on it); undefined otherwise or when the doc cannot be read.
 */
async function failedText (ctx: ClientContext, id: string, job: EscrowJobState, verifier: RecordVerifier, done: number,
  signal: AbortSignal): Promise<string | undefined> {
  if (job.status !== 'Open') return undefined
  const doc = await openJobDoc(ctx, id, signal, job.rejections).catch(() => undefined)
  if (doc === undefined) return undefined
  const failures = roundFailures(doc, id, job, verifier)
  const f = failures.summary()
  failures.stop()
  if (!failedForCertain(f, done)) return undefined
  return ` and none will come: the job failed (${f.attempts} failed MicroJob attempts on ${f.peers} peers: ${f.details.join('; ')}) and the ` +
    `peers gave it up; its creator may refund it after its deadline ${isoSeconds(job.deadline)} (jobmesh-dapp refund ${id})`
}

async function noneText (ctx: ClientContext, job: EscrowJobState, signal: AbortSignal): Promise<string> {
  if (job.status === 'Refunded') return ' (the job was refunded: its fee went back, and no result will come)'
  if (job.status === 'Open' && await chainNow(ctx, signal) > job.deadline) {
    return ` (its deadline ${isoSeconds(job.deadline)} passed before a release: no peer works on it any more, and its creator may refund it)`
  }
  return ' yet'
}
