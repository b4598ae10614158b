import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SingleBar } from 'cli-progress'
import { InvalidConfigError, JobFailedError, OutputWriteError } from '../errors.js'
import type { CliIo } from './io.js'
import type { JobClient } from '../client.js'
import type { Release } from '../release.js'
import type { EscrowJobState } from '@jobmesh/contracts'
import type { MicroJobOutput } from '../results.js'

/** A progress bar on the io's progress stream (none in JSON mode or without a stream). */
export function progressBar (io: CliIo, label: string, total: number, start: number, quiet: boolean): SingleBar | undefined {
  if (quiet || io.progressStream === undefined) return undefined
  const bar = new SingleBar({ stream: io.progressStream, format: `${label} [{bar}] {value}/{total} {percentage}%`, hideCursor: true })
  bar.start(total, start)
  return bar
}

export interface FollowOptions {
  quiet: boolean
  timeoutMs?: number
  signal?: AbortSignal
}

/**
 * Shows `{ done, total }` of the job's MicroJobs until every one has a result; returns the last count. A job the peers
 * gave up ends it with `JobFailedError` saying when and how its fee can be refunded.
 */
export async function followProgress (client: JobClient, jobId: string, io: CliIo, options: FollowOptions): Promise<{ done: number, total: number }> {
  let bar: SingleBar | undefined
  let last = { done: 0, total: 0 }
  try {
    for await (const u of client.progress(jobId, { signal: options.signal, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) })) {
      bar ??= progressBar(io, 'MicroJobs', u.total, u.done, options.quiet)
      bar?.update(u.done)
      last = u
    }
  } catch (err) {
    // `submit` follows its job with this: a job the peers gave up is paid for, and `submit` said only that it failed,
    // not that the fee comes back only by a refund after the deadline (as `wait` says, followOutcome)
    if ((err as Error).name === JobFailedError.name) throw await refundHint(client, jobId, err as JobFailedError)
    throw err
  } finally {
    bar?.stop()
  }
  return last
}

/** Waits for the escrow release, telling each status change on stderr. */
export async function followRelease (client: JobClient, jobId: string, io: CliIo, options: FollowOptions & { pollIntervalMs?: number }): Promise<Release> {
  let seen = ''
  let failing = false
  return await client.waitForRelease(jobId, {
    signal: options.signal,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
    // an RPC that stops answering is said once, and its return: the wait looked healthy for its whole allowance
    onReadError: (err, failingForMs, outageMs) => {
      if (failing || options.quiet) return
      failing = true
      io.err(`warning: the chain's RPC did not answer a status read (${err.name}: ${err.message}); trying again for up to ${Math.round((outageMs - failingForMs) / 1000)} s`)
    },
    onStatus: (job) => {
      if (failing && !options.quiet) io.err('the chain\'s RPC answers again')
      failing = false
      const line = job.status === 'Submitted'
        ? submittedLine(jobId, job)
        : `status: ${job.status}${job.rejections > 0 ? ` (${job.rejections} rejected submissions)` : ''}`
      if (line !== seen && !options.quiet) io.err(line)
      seen = line
    }
  })
}

/**
 * A submitted job's stage: its verifiers still being drawn (all at once, when k eligible nodes besides its submitter
 * are idle: a node that left can hold it there), or drawn and re-running a sample.
 */
function submittedLine (jobId: string, job: Pick<EscrowJobState, 'k' | 'assigned'>): string {
  if (job.assigned >= job.k) return `results submitted; ${job.k} verifiers re-run a sample`
  return `results submitted; its ${job.k} verifiers are not drawn yet (${job.assigned} of ${job.k}): they are drawn at once when ` +
    `${job.k} eligible nodes besides its submitter are idle (jobmesh-dapp describe ${jobId} says what it waits for)`
}

/**
 * Waits for the escrow release like {@link followRelease} and, beside it, follows the job's progress: a job the peers
 * gave up (its MicroJobs failed on several peers: code that traps, loops or is not WebAssembly) ends the wait at
 * once with `JobFailedError`, saying when and how the fee can be refunded, instead of waiting out the timeout.
 * Progress that cannot be followed (no peer reachable, a timeout) leaves the release wait alone.
 */
export async function followOutcome (client: JobClient, jobId: string, io: CliIo, options: FollowOptions & { pollIntervalMs?: number }): Promise<Release> {
  const stop = new AbortController()
  const signal = options.signal == null ? stop.signal : AbortSignal.any([options.signal, stop.signal])
  const failed = (async (): Promise<never> => {
    try {
      for await (const _ of client.progress(jobId, { signal, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) })) {
        // progress counts only; the release wait tells the status changes
      }
    } catch (err) {
      if ((err as Error).name === 'JobFailedError') throw await refundHint(client, jobId, err as JobFailedError)
    }
    return await new Promise<never>(() => {}) // done or unknown: the release decides
  })()
  try {
    return await Promise.race([followRelease(client, jobId, io, { ...options, signal }), failed])
  } finally {
    stop.abort()
    failed.catch(() => {})
  }
}

async function refundHint (client: JobClient, jobId: string, err: JobFailedError): Promise<JobFailedError> {
  const deadline = await client.status(jobId).then(j => new Date(j.deadline * 1000).toISOString(), () => undefined)
  const when = deadline == null ? 'after its deadline' : `after its deadline (${deadline})`
  return new JobFailedError(`${err.message}; nobody is paid for failed work: take the fee back ${when} with \`jobmesh-dapp refund ${jobId}\``,
    { attempts: err.attempts, peers: err.peers, reasons: err.reasons, details: err.details }, { cause: err })
}

/** The file naming the job whose outputs a folder holds (written with them). */
export const JOB_MARK = '.jobmesh-job'

/** An output file's name, `<macroIndex>.<index>.bin`. */
const OUTPUT_FILE = /^\d+\.\d+\.bin$/

/**
 * Refuses a folder that holds another job's outputs (its {@link JOB_MARK}, or output files without one): writing there
 * replaced some of them and left the rest beside the new ones, a folder of two jobs. The same job's folder is fine;
 * without a `jobId` (a job not submitted yet) any job's is another's.
 *
 * @throws InvalidConfigError
 */
export async function checkOutputFolder (out: string, jobId?: string): Promise<void> {
  const mark = (await readFile(join(out, JOB_MARK), 'utf8').catch(() => undefined))?.trim()
  if (mark !== undefined) {
    if (mark.toLowerCase() === jobId?.toLowerCase()) return
    throw new InvalidConfigError(`--out ${out} holds the outputs of job ${mark}: name another folder for ${jobId === undefined ? 'the new job' : `job ${jobId}`}`)
  }
  const entries = await readdir(out, { withFileTypes: true }).catch(() => [])
  const outputs = entries.filter(e => e.isFile() && OUTPUT_FILE.test(e.name)).map(e => e.name)
  if (outputs.length > 0) {
    throw new InvalidConfigError(`--out ${out} holds ${outputs.length} output ${outputs.length === 1 ? 'file' : 'files'} (${outputs[0]}...) of another job or run: name another folder, or empty this one`)
  }
}

/**
 * Downloads, verifies and writes every output as `<macroIndex>.<index>.bin`, with a progress bar, and the job's id in
 * {@link JOB_MARK}. @throws InvalidConfigError for a folder of another job's outputs (before the download)
 */
export async function writeResults (client: JobClient, jobId: string, out: string, io: CliIo,
  options: FollowOptions & { fetchTimeoutMs?: number }): Promise<MicroJobOutput[]> {
  await checkOutputFolder(out, jobId)
  let bar: SingleBar | undefined
  let outputs: MicroJobOutput[]
  try {
    outputs = await client.results(jobId, {
      signal: options.signal,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.fetchTimeoutMs === undefined ? {} : { fetchTimeoutMs: options.fetchTimeoutMs }),
      onOutput: (_, fetched, total) => {
        bar ??= progressBar(io, 'outputs  ', total, 0, options.quiet)
        bar?.update(fetched)
      }
    })
  } finally {
    bar?.stop()
  }
  await mkdir(out, { recursive: true })
  // the mark first: a write that fails half way leaves a folder this job's next try may write again
  try {
    await writeFile(join(out, JOB_MARK), `${jobId.toLowerCase()}\n`)
  } catch (err) {
    throw new OutputWriteError(`cannot write ${join(out, JOB_MARK)}: ${(err as Error).message}`, { cause: err })
  }
  for (const o of outputs) {
    const file = join(out, `${o.macroIndex}.${o.index}.bin`)
    try {
      await writeFile(file, o.bytes)
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      const why = e.code === 'EISDIR' ? 'a folder of that name is in the way' : e.code === 'ENOSPC' ? 'the disk is full' : e.message
      throw new OutputWriteError(`cannot write the output of MicroJob ${o.macroIndex}.${o.index} to ${file}: ${why}`, { cause: err })
    }
  }
  return outputs
}
