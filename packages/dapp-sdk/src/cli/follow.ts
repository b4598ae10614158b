import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SingleBar } from 'cli-progress'
import type { CliIo } from './io.js'
import type { JobClient } from '../client.js'
import type { Release } from '../release.js'
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

/** Shows `{ done, total }` of the job's MicroJobs until every one has a result; returns the last count. */
export async function followProgress (client: JobClient, jobId: string, io: CliIo, options: FollowOptions): Promise<{ done: number, total: number }> {
  let bar: SingleBar | undefined
  let last = { done: 0, total: 0 }
  try {
    for await (const u of client.progress(jobId, { signal: options.signal, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) })) {
      bar ??= progressBar(io, 'MicroJobs', u.total, u.done, options.quiet)
      bar?.update(u.done)
      last = u
    }
  } finally {
    bar?.stop()
  }
  return last
}

/** Waits for the escrow release, telling each status change on stderr. */
export async function followRelease (client: JobClient, jobId: string, io: CliIo, options: FollowOptions & { pollIntervalMs?: number }): Promise<Release> {
  let seen = ''
  return await client.waitForRelease(jobId, {
    signal: options.signal,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
    onStatus: (job) => {
      const line = job.status === 'Submitted'
        ? `results submitted; ${job.k} verifiers re-run a sample`
        : `status: ${job.status}${job.rejections > 0 ? ` (${job.rejections} rejected submissions)` : ''}`
      if (line !== seen && !options.quiet) io.err(line)
      seen = line
    }
  })
}

/** Downloads, verifies and writes every output as `<macroIndex>.<index>.bin`, with a progress bar. */
export async function writeResults (client: JobClient, jobId: string, out: string, io: CliIo,
  options: FollowOptions & { fetchTimeoutMs?: number }): Promise<MicroJobOutput[]> {
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
  for (const o of outputs) await writeFile(join(out, `${o.macroIndex}.${o.index}.bin`), o.bytes)
  return outputs
}
