import { Option } from 'commander'
import { table } from '@jobmesh/peer/table'
import { formatEther } from 'ethers'
import { expiryReason, isExpired } from '@jobmesh/contracts'
import { clientFrom, escrowClientFrom, withConnectFlags } from './client-options.js'
import { followOutcome, writeResults } from './follow.js'
import { onInterruptExit } from './interrupt.js'
import type { InterruptExitOptions } from './interrupt.js'
import { cannotFinishWarning } from './network-fit.js'
import { discardIfEmpty, jobIdArg, positiveInt, prepareOutputDir, secondsToMs } from './options.js'
import type { ChainAccess, ConnectFlags } from './client-options.js'
import type { OutputDir } from './options.js'
import type { CliIo } from './io.js'
import type { JobClient } from '../client.js'
import type { EscrowClient } from '../escrow-client.js'
import type { EscrowJobState as EscrowJob } from '@jobmesh/contracts'
import type { JobStory } from '@jobmesh/peer/observe'
import type { Command } from 'commander'

/** How a command reaches the chain, and what it does on Ctrl-C. */
interface CommandRun extends InterruptExitOptions {
  access?: ChainAccess
  /** Runs before the client starts, with Ctrl-C handled already (what it makes, `tidy` can take back). */
  prepare?(): Promise<void>
}

/** Runs `fn` with what `open` gives; Ctrl-C exits with 130; `stop` is called after. */
async function using<C, T> (io: CliIo, open: () => Promise<C>, stop: (client: C) => Promise<void> | void, fn: (client: C) => Promise<T>,
  run: CommandRun): Promise<T> {
  const off = onInterruptExit(io, run)
  try {
    await run.prepare?.()
    const client = await open()
    try {
      const result = await fn(client)
      run.finished = true
      return result
    } finally {
      await stop(client)
    }
  } finally {
    off()
  }
}

/** Runs `fn` with a job client from the connection flags; Ctrl-C exits with 130; the client is stopped after. */
export async function withClient<T> (flags: ConnectFlags, io: CliIo, fn: (client: JobClient) => Promise<T>, run: CommandRun = {}): Promise<T> {
  return await using(io, async () => await clientFrom(flags, {}, io.err, run.access), async c => { await c.stop() }, fn, { json: flags.json === true, ...run })
}

/** {@link withClient} for `status`, `list` and `refund`: an escrow client, no node. */
async function withEscrow<T> (flags: ConnectFlags, io: CliIo, fn: (client: EscrowClient) => Promise<T>, run: CommandRun = {}): Promise<T> {
  return await using(io, async () => await escrowClientFrom(flags, run.access), c => { c.stop() }, fn, { json: flags.json === true, ...run })
}

/** The escrow record as JSON: wei amounts and the seed (bigints) as decimal strings. */
function jsonJob (j: EscrowJob): Record<string, unknown> {
  return Object.fromEntries(Object.entries(j).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]))
}

/** The chain's clock for a status line: this machine's when the chain's cannot be read (the line is advisory). */
async function clockOf (client: Pick<EscrowClient, 'chainTime'>): Promise<number> {
  return await client.chainTime().catch(() => Math.floor(Date.now() / 1000))
}

function printJob (io: CliIo, j: EscrowJob, nowSeconds: number): void {
  io.out(`status: ${j.status}${statusNote(j, nowSeconds)}`)
  io.out(`creator: ${j.creator}`)
  io.out(`fee: ${formatEther(j.fee)} ETH`)
  io.out(`deadline: ${new Date(j.deadline * 1000).toISOString()}`)
  io.out(`microJobs: ${j.macroJobs * j.microJobsPerMacro}`)
  io.out(`rejections: ${j.rejections}`)
  io.out(`resultRoot: ${j.resultRoot}`)
}

/**
 * What an escrow status does not say by itself: a job past its deadline that nothing can release any more (Open, or
 * Submitted with no verifier drawn), or one the peers may have given up.
 */
function statusNote (j: EscrowJob, nowSeconds: number): string {
  if (isExpired(j, nowSeconds)) return ` (expired: ${expiryReason(j.status)}, so it can no longer be released; jobmesh-dapp refund ${j.jobId} returns the fee)`
  if (j.status === 'Open') return ` (the escrow's word: jobmesh-dapp describe ${j.jobId} says whether the peers work on it or gave it up)`
  return ''
}

/** What `results` could not check yet, for a job the escrow has not released: the outputs are not confirmed. */
function unconfirmedNote (jobId: string, { status, deadline, assigned }: Pick<EscrowJob, 'status' | 'deadline' | 'assigned'>, nowSeconds: number): string | undefined {
  if (isExpired({ status, deadline, assigned }, nowSeconds)) {
    const what = status === 'Open' ? 'not submitted on chain' : 'submitted on chain but no verifier was drawn to check them'
    return `note: these outputs are ${what} and no release can come: the deadline of job ${jobId} has passed ` +
      `(jobmesh-dapp refund ${jobId} returns the fee)`
  }
  if (status === 'Submitted') {
    return 'note: the verifiers have not confirmed these outputs yet: each matches its hash and the root the submitter put on chain, ' +
      `but the escrow has not released job ${jobId} (jobmesh-dapp wait ${jobId} waits for it)`
  }
  if (status === 'Open') {
    return 'note: these outputs are not submitted on chain yet: each matches the hash of its result record in the job doc, ' +
      `but no root is on chain and no verifier has checked them (jobmesh-dapp wait ${jobId} waits for the release)`
  }
  if (status === 'Refunded') return `note: job ${jobId} was refunded: no verifier confirmed these outputs`
  return undefined
}

/** `status`, `wait`, `results`, `list`, `refund`. */
export function jobCommands (root: Command, io: CliIo): void {
  withConnectFlags(root.command('status')
    .description('show the escrow status of a job')
    .argument('<jobId>', 'job id', jobIdArg), 'reads', false)
    .action(async (jobId: string, flags: ConnectFlags) => {
      await withEscrow(flags, io, async (client) => {
        const j = await client.status(jobId)
        const now = await clockOf(client)
        if (flags.json === true) io.out(JSON.stringify({ ...jsonJob(j), expired: isExpired(j, now) }))
        else printJob(io, j, now)
      }, { access: 'reads' })
    })

  withConnectFlags(root.command('wait')
    .description('wait until the escrow releases the job, showing its status; exits 1 at once when the peers gave the job up (failing code)')
    .argument('<jobId>', 'job id', jobIdArg)
    .option('--timeout <s>', 'give up after this many seconds (default 1800)', positiveInt)
    .addOption(new Option('--poll <s>', 'seconds between two status reads, fractions allowed, e.g. 0.5 (default 2)').argParser(secondsToMs)), 'reads')
    .action(async (jobId: string, flags: ConnectFlags & { timeout?: number, poll?: number }) => {
      await withClient(flags, io, async (client) => {
        const job = await client.status(jobId)
        // open, or submitted with verifiers still to draw: either way it needs k nodes besides its submitter
        if (job.status === 'Open' || (job.status === 'Submitted' && job.assigned < job.k)) {
          // the job's story, read once: its announcement and the peers matching it
          let story: Promise<JobStory | undefined> | undefined
          const describe = async (): Promise<JobStory | undefined> => await (story ??= client.describe(jobId).catch(() => undefined))
          // past its deadline (by the chain's clock) a job nothing can release waits for nothing: the wait below says to refund it
          const expired = (await describe())?.phase === 'expired'
          const warning = expired ? undefined : await cannotFinishWarning(client, {
            k: job.k,
            name: `job ${jobId}`,
            unprocessed: job.status === 'Open',
            fee: job.fee,
            deadline: job.deadline,
            // with no peer profile known, this client did not get the peers' index: it cannot tell
            announced: async () => await describe().then(s => s === undefined || s.matching.peers === 0 ? undefined : s.announced),
            matching: async () => (await describe())?.matching
          }).catch((err: Error) => {
            // advisory: a failed read here (the chain's hiccup) must not end the wait, whose reads tolerate failures
            if (err.name === 'AbortError') throw err
            return undefined
          })
          if (warning !== undefined) io.err(warning)
        }
        const r = await followOutcome(client, jobId, io, {
          quiet: flags.json === true,
          ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout * 1000 }),
          // --poll is parsed to ms
          ...(flags.poll === undefined ? {} : { pollIntervalMs: flags.poll })
        })
        if (flags.json === true) io.out(JSON.stringify({ jobId, ...r }))
        else io.out(`released in block ${r.blockNumber}`)
      }, { access: 'reads' })
    })

  withConnectFlags(root.command('results')
    .description('download and verify every MicroJob output into a directory')
    .argument('<jobId>', 'job id', jobIdArg)
    .requiredOption('--out <dir>', 'directory for the outputs (<macro>.<index>.bin); required')
    .option('--timeout <s>', 'give up after this many seconds (default 300)', positiveInt)
    .option('--fetch-timeout <s>', 'give up on one output nobody serves after this many seconds (default 60)', positiveInt), 'reads')
    .action(async (jobId: string, flags: ConnectFlags & { out: string, timeout?: number, fetchTimeout?: number }) => {
      // a folder that cannot be written is found before anything is downloaded (prepare); an unknown job, a refused
      // connection, a Ctrl-C...: no empty folder is left behind
      const dir: OutputDir = { path: '' }
      await withClient(flags, io, async (client) => {
        const out = dir.path
        const outputs = await writeResults(client, jobId, out, io, {
          quiet: flags.json === true,
          timeoutMs: (flags.timeout ?? 300) * 1000,
          ...(flags.fetchTimeout === undefined ? {} : { fetchTimeoutMs: flags.fetchTimeout * 1000 })
        })
        const job = await client.status(jobId)
        const status = job.status
        if (flags.json === true) {
          io.out(JSON.stringify({ jobId, status, out, outputs: outputs.map(o => ({ macroIndex: o.macroIndex, index: o.index, cid: o.cid, outputHash: o.outputHash, signer: o.signer, size: o.bytes.byteLength })) }))
        } else {
          io.out(`${outputs.length} outputs verified and written to ${out}`)
          const note = unconfirmedNote(jobId, job, Math.floor(Date.now() / 1000))
          if (note !== undefined) io.err(note)
        }
      }, {
        access: 'reads',
        prepare: async () => { await prepareOutputDir(flags.out, '--out', dir) },
        tidy: () => { discardIfEmpty(dir) }
      }).catch((err: unknown) => {
        discardIfEmpty(dir)
        throw err
      })
    })

  withConnectFlags(root.command('list')
    .description('the jobs this wallet created, with their escrow status (the key names the wallet)'), 'identifies', false)
    .action(async (flags: ConnectFlags) => {
      await withEscrow(flags, io, async (client) => {
        const jobs = await client.list()
        const now = await clockOf(client)
        if (flags.json === true) {
          io.out(JSON.stringify(jobs.map(j => ({ ...jsonJob(j), expired: isExpired(j, now), specCid: j.specCid, createdBlock: j.createdBlock }))))
          return
        }
        if (jobs.length === 0) {
          io.out(`no jobs created by ${client.address}`)
          return
        }
        // one aligned table, whatever the fees' widths (the columns shifted with them)
        const rows = jobs.map(j => [j.jobId, isExpired(j, now) ? `${j.status} (expired)` : j.status, `${formatEther(j.fee)} ETH`, j.macroJobs * j.microJobsPerMacro, new Date(j.deadline * 1000).toISOString()])
        for (const line of table(['job', 'status', 'fee', 'MicroJobs', 'deadline'], rows).trimEnd().split('\n')) io.out(line)
        if (jobs.some(j => isExpired(j, now))) io.out('expired: past its deadline, a job can no longer be released; jobmesh-dapp refund <job> returns its fee')
        // the escrow cannot tell a job being worked on from one the peers gave up (its code fails): the job's docs can
        if (jobs.some(j => j.status === 'Open' && !isExpired(j, now))) io.out('Open: the escrow\'s word; jobmesh-dapp describe <job> says whether the peers work on it or gave it up (its code fails)')
      })
    })

  withConnectFlags(root.command('refund')
    .description('return the fee from the escrow to the job\'s creator after the deadline of a job that was not released (settling first a verification round its peers left unsettled); anyone may send it')
    .argument('<jobId>', 'job id', jobIdArg), 'pays', false)
    .action(async (jobId: string, flags: ConnectFlags) => {
      await withEscrow(flags, io, async (client) => {
        const r = await client.refund(jobId, {
          // stage lines on stderr: stdout keeps the result (one JSON document with --json)
          onProgress: ({ stage, txHash, blockNumber }) => {
            if (stage === 'settling') {
              io.err(`settling the verification round of job ${jobId} first: it is past its deadline and no peer settled it (anyone may)...`)
            } else if (stage === 'settled') {
              io.err(txHash === undefined ? 'the round was settled meanwhile by someone else' : `settled in block ${blockNumber ?? '?'} (tx ${txHash})`)
            }
          }
        })
        if (flags.json === true) io.out(JSON.stringify({ jobId, ...r, feeWei: r.feeWei.toString() }))
        else io.out(`refunded ${formatEther(r.feeWei)} ETH to the job's creator ${r.creator} in block ${r.blockNumber} (tx ${r.txHash})`)
      })
    })
}
