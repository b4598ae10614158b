import { resolve } from 'node:path'
import { MAX_MICROJOB_OUTPUT_BYTES, MIN_VERIFIERS } from '@jobmesh/peer/protocol'
import { runTimeoutMs } from '@jobmesh/peer/processor'
import { checkCode } from '../code-check.js'
import { DEFAULT_REPLICATION_TIMEOUT_MS, DEFAULT_SECONDS_PER_MICRO_JOB, DEFAULT_VERIFIERS } from '../constants.js'
import { localSize } from '../spec.js'
import { MAX_SAMPLE_LEAVES } from '../verification.js'
import { InputUnavailableError, InputsNotHeldError, JobCannotFinishError, NoPeerConnectedError } from '../errors.js'
import { clientFrom, withConnectFlags } from './client-options.js'
import { checkOutputFolder, followProgress, followRelease, writeResults } from './follow.js'
import { onSubmitInterrupt } from './interrupt.js'
import { cannotFinish } from './network-fit.js'
import { checkInputFile, discardIfEmpty, ether, nonNegativeInt, positiveInt, prepareOutputDir, verificationLevel } from './options.js'
import type { OutputDir } from './options.js'
import { plural, weiPerSecond } from './text.js'
import type { ConnectFlags } from './client-options.js'
import type { SubmitState } from './interrupt.js'
import type { CliIo } from './io.js'
import type { SubmitInput } from '../spec.js'
import type { InputRefusal } from '../submit.js'
import type { VerificationLevel } from '../verification.js'
import type { Command } from 'commander'

interface SubmitFlags extends ConnectFlags {
  code: string
  data: string
  macroJobs: number
  microPerMacro: number
  blocksPerMicro: number
  blockSize: number
  blockCount?: number
  price: bigint
  verifiers?: number
  verification?: VerificationLevel
  deadlineMinutes?: number
  minVram?: number
  gpuModel?: string
  model?: string
  maxOutput?: number
  secondsPerMicro?: number
  detach?: boolean
  out?: string
  timeout?: number
  force?: boolean
}

function submitInput (flags: SubmitFlags): SubmitInput {
  return {
    code: flags.code,
    data: flags.data,
    blockSize: flags.blockSize,
    ...(flags.blockCount === undefined ? {} : { blockCount: flags.blockCount }),
    slicing: { macroJobs: flags.macroJobs, microJobsPerMacro: flags.microPerMacro, blocksPerMicro: flags.blocksPerMicro },
    price: flags.price,
    ...(flags.verifiers === undefined ? {} : { verifiers: flags.verifiers }),
    ...(flags.verification === undefined ? {} : { verification: flags.verification }),
    ...(flags.deadlineMinutes === undefined ? {} : { deadlineAfterMs: flags.deadlineMinutes * 60_000 }),
    ...(flags.minVram === undefined && flags.gpuModel === undefined
      ? {}
      : { requirements: { minVramGb: flags.minVram ?? 0, ...(flags.gpuModel === undefined ? {} : { gpuModel: flags.gpuModel }) } }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.maxOutput === undefined && flags.secondsPerMicro === undefined
      ? {}
      : {
          estimate: {
            ...(flags.maxOutput === undefined ? {} : { maxOutputBytes: flags.maxOutput }),
            ...(flags.secondsPerMicro === undefined ? {} : { secondsPerMicroJob: flags.secondsPerMicro })
          }
        })
  }
}

/** The peers' refusals (or failed proofs) of a job's inputs, one line: each reason once, with how many peers gave it. */
function refusalText (refusals: InputRefusal[]): string {
  const counts = new Map<string, number>()
  for (const r of refusals) {
    // a remote peer's words: the CLI's io takes control characters out (`terminalIo`)
    counts.set(r.reason, (counts.get(r.reason) ?? 0) + 1)
  }
  return [...counts].map(([why, n]) => `${plural(n, 'peer', 'peers')}: ${why}`).join('; ')
}

/**
 * Of a --data file whose size is not a whole number of --block-size blocks: its last block is short, which the peers
 * hand to the last MicroJob as it is; a module that reads whole blocks fails there (and only there), after the job is
 * paid. Undefined for a whole number, or data named by a URI.
 */
async function shortLastBlock (flags: Pick<SubmitFlags, 'data' | 'blockSize'>): Promise<string | undefined> {
  const size = await localSize(flags.data, '--data')
  const rest = size === undefined ? 0 : size % flags.blockSize
  if (size === undefined || rest === 0) return undefined
  return `--data is ${size} bytes, not a whole number of ${flags.blockSize}-byte blocks: its last block has ${rest} bytes, and a module that ` +
    'reads whole blocks fails on the MicroJob that gets it'
}

async function submitAndFollow (flags: SubmitFlags, io: CliIo, state: SubmitState, signal: AbortSignal): Promise<void> {
  const json = flags.json === true
  const client = await clientFrom(flags, { signal }, io.err)
  state.client = client
  try {
    const requirements = { minVramGb: flags.minVram, gpuModel: flags.gpuModel }
    let warnings: string[] = []
    const timeoutMs = (flags.timeout ?? 1800) * 1000
    const submission = client.submit(submitInput(flags), {
      signal,
      // no peer that could hold the inputs: refused before anything is uploaded or paid, unless --force
      requirePeer: flags.force !== true,
      // too few active nodes, read on chain, is refused by the SDK: its fee would wait for its deadline (unless --force)
      requireActiveNodes: flags.force !== true,
      // the job weighed against the network once it is valid and a peer answered (the peers' profiles reach this client
      // from them): what the known profiles say is a warning (they may be a part of the network's), and so is the
      // count of active nodes with --force
      beforeUpload: async () => {
        const unfit = await cannotFinish(client, {
          k: flags.verifiers ?? DEFAULT_VERIFIERS,
          name: 'this job',
          unprocessed: true,
          fee: flags.price,
          matching: async () => requirements.minVramGb === undefined && requirements.gpuModel === undefined ? undefined : await client.matchingPeers(requirements, { signal }),
          signal
        })
        const short = await shortLastBlock(flags)
        warnings = [unfit?.text, short].filter((t): t is string => t !== undefined).map(t => `warning: ${t}`)
      },
      // a detached client leaves nobody to serve the inputs: it waits (Ctrl-C to stop) until a peer holds them. One
      // that follows the job serves them itself: its wait for a holder is part of the following --timeout bounds
      ...(flags.detach === true
        ? { detached: true, replicationTimeoutMs: timeoutMs }
        : { replicationTimeoutMs: Math.min(timeoutMs, DEFAULT_REPLICATION_TIMEOUT_MS) }),
      onProgress: ({ stage, jobId }) => {
        // the first stage after validation: no warning about a job that was refused
        for (const w of warnings) io.err(w)
        warnings = []
        if (stage === 'creating' && jobId !== undefined) {
          state.jobId = jobId
          state.phase = 'creating'
          // before the funding transaction: the job it may fund is named (a Ctrl-C from here on names it too), but it
          // exists only once funded (with --json too: the one line before it pays)
          io.err(`creating job ${jobId}...`)
          return
        }
        if (stage === 'announcing') {
          state.phase = 'announcing'
          // funded: the job exists
          if (!json) io.out(`jobId: ${jobId ?? state.jobId ?? ''}`)
        }
        if (stage !== 'done' && !json) io.err(`${stage}...`)
      }
    })
    // from the funding transaction on, a Ctrl-C waits for the submission instead of stranding a paid job
    state.submission = submission
    const job = await submission.catch((err: unknown) => {
      const e = err as Error
      if (e?.name === InputUnavailableError.name) {
        throw new InputUnavailableError(`${e.message}. --force submits anyway: the fee is then locked until the deadline unless a peer fetches it`,
          (e as InputUnavailableError).uri, { cause: e })
      }
      if (e?.name === JobCannotFinishError.name) {
        const short = e as JobCannotFinishError
        throw new JobCannotFinishError(`${e.message}. --force submits anyway: the fee is then locked until the deadline unless the network changes`,
          short.active, short.needed, { cause: e })
      }
      if (e?.name !== NoPeerConnectedError.name) throw err
      throw new NoPeerConnectedError(`${e.message} (--bootstrap, JOBMESH_BOOTSTRAP; jobmesh devnet prints it). --force submits anyway: ` +
        'the fee is then locked until the deadline unless a peer takes the job', (e as NoPeerConnectedError).connected, { cause: e })
    })
    // a Ctrl-C that waited for it prints its line and ends the process
    if (state.interrupted === true) await new Promise<never>(() => {})
    state.phase = 'submitted'
    state.job = job
    const summary: Record<string, unknown> = {
      jobId: job.jobId, specCid: job.specCid, txHash: job.txHash, blockNumber: job.blockNumber, microJobs: job.microJobs.length, holders: job.holders,
      refusals: job.refusals, unproven: job.unproven, taskValue: job.taskValue.toString()
    }
    const refused = refusalText(job.refusals)
    const unproven = refusalText(job.unproven)
    if (!json) {
      io.out(`specCid: ${job.specCid}`)
      io.out(`tx: ${job.txHash}`)
      io.out(`microJobs: ${job.microJobs.length}`)
      if (job.spec.requirements.modelId != null) io.out(`model: ${job.spec.requirements.modelId}`)
      io.out(`task value: ${weiPerSecond(job.taskValue)}`)
      io.out(`inputs held by: ${plural(job.holders.length, 'peer', 'peers')}`)
      if (refused !== '') io.out(`inputs refused by: ${refused}`)
      if (unproven !== '') io.out(`said they hold the inputs, did not prove it: ${unproven}`)
    }
    if (job.holders.length === 0 && flags.detach === true) {
      throw new InputsNotHeldError(`job ${job.jobId} is funded and announced, but no peer confirmed it holds the job's code and data ` +
        `within ${timeoutMs / 1000} s, and only this client had them, so nobody can start the job. ` +
        (refused === ''
          ? 'Check that peers run and are reachable (--bootstrap, JOBMESH_BOOTSTRAP) before submitting again; '
          : `The peers refused them (${refused}); `) +
        (unproven === '' ? '' : `peers that said they hold them did not prove it (${unproven}); `) +
        `this job can be refunded after its deadline (jobmesh-dapp refund ${job.jobId})`, job.jobId)
    }
    if (job.holders.length === 0) {
      io.err('warning: no peer confirmed it holds the job\'s code and data yet; keep this process running until peers pick the job up')
    }
    if (flags.detach === true) {
      if (json) io.out(JSON.stringify({ ...summary, detached: true }))
      else io.out(`detached: follow the job with jobmesh-dapp wait ${job.jobId}, then jobmesh-dapp results ${job.jobId} --out <dir>`)
      return
    }
    const out = resolve(flags.out ?? `jobmesh-results-${job.jobId.slice(2, 10)}`)
    const followed = async <T>(step: Promise<T>): Promise<T> => await step.catch((err: Error) => {
      // the job is paid for and goes on: a person reading only the timeout might submit (and pay) again
      if (err.name === 'TimeoutError' || err.name === 'ReleaseTimeoutError') {
        io.err(`job ${job.jobId} is funded and goes on without this process (--timeout ${timeoutMs / 1000} s ran out following it): ` +
          `follow it with jobmesh-dapp wait ${job.jobId}, then jobmesh-dapp results ${job.jobId} --out ${out}; submitting again pays for another job`)
        // and --json's error document names the job
        if (!('jobId' in err)) Object.assign(err, { jobId: job.jobId })
      }
      throw err
    })
    const progress = await followed(followProgress(client, job.jobId, io, { quiet: json, timeoutMs, signal }))
    if (!json) io.out(`done: ${progress.done}/${progress.total} MicroJobs`)
    const release = await followed(followRelease(client, job.jobId, io, { quiet: json, timeoutMs, signal }))
    if (!json) io.out(`released in block ${release.blockNumber}`)
    const outputs = await followed(writeResults(client, job.jobId, out, io, { quiet: json, timeoutMs: Math.min(timeoutMs, 600_000), signal }))
    if (json) io.out(JSON.stringify({ ...summary, status: 'Released', releaseBlock: release.blockNumber, outputs: outputs.length, out }))
    else io.out(`${outputs.length} outputs verified and written to ${out}`)
  } finally {
    // after Ctrl-C the handler may still wait for the submission or ask the chain about the job, then ends the process
    if (state.interrupted !== true) await client.stop()
  }
}

/** `jobmesh-dapp submit`: the whole way by default (progress, release, results), or `--detach` after funding. */
export function submitCommand (root: Command, io: CliIo): void {
  withConnectFlags(root.command('submit')
    .description('upload code and data, create and fund the job, announce it; then follow it to the release and write its results (--detach: exit once peers hold the inputs)')
    .requiredOption('--code <file|ipfs://cid|https://url>', 'WebAssembly module of the job')
    .requiredOption('--data <file|ipfs://cid|https://url>', 'input data')
    .requiredOption('--macro-jobs <n>', 'MacroJobs', positiveInt)
    .requiredOption('--micro-per-macro <m>', 'MicroJobs per MacroJob', positiveInt)
    .requiredOption('--blocks-per-micro <b>', 'data blocks per MicroJob', positiveInt)
    .requiredOption('--block-size <bytes>', 'bytes per data block', positiveInt)
    .option('--block-count <n>', 'data blocks, needed when --data is a URI (a file\'s are counted: its size / --block-size, rounded up)', positiveInt)
    .requiredOption('--price <eth>', 'fee paid into the escrow, in ether', ether)
    .option('--verifiers <k>', `verifiers who re-run a sample, an odd number, at least ${MIN_VERIFIERS} and at most the escrow's maxVerifiers (7 on a default deployment; default ${DEFAULT_VERIFIERS})`, positiveInt)
    .option('--verification <level>', 'the share of each MacroJob\'s MicroJobs every verification round re-runs: a fraction in (0, 1], rounded up to whole MicroJobs ' +
      '(0.25 of 8 is 2), or full (every MicroJob: a released job\'s outputs were all re-run by a majority of its verifiers); default one MicroJob per MacroJob. ' +
      `More costs more of the fee (--price pays every run and re-run alike), and a round re-runs at most ${MAX_SAMPLE_LEAVES} MicroJobs (MacroJobs x re-runs per MacroJob)`, verificationLevel)
    .option('--deadline-minutes <min>', 'minutes until the job may be refunded, more than 3 (the peers stop 3 minutes before it) and at most the escrow\'s maxDeadline (43200, 30 days, on a default deployment); default 1440', positiveInt)
    .option('--min-vram <gb>', 'minimum GPU memory in GB', nonNegativeInt)
    .option('--gpu-model <name>', 'required GPU model (default: any)')
    .option('--max-output <bytes>', `the most bytes one MicroJob outputs, up to ${MAX_MICROJOB_OUTPUT_BYTES} (64 MiB, the default): a run that outputs more fails on every peer, and peers that cap what one job may make them hold see the job's total (MicroJobs x this)`, positiveInt)
    .option('--seconds-per-micro <s>', `the longest one MicroJob runs on a peer, in seconds (default ${DEFAULT_SECONDS_PER_MICRO_JOB}): the peers stop a run after a multiple of this (at most ${runTimeoutMs({ estimate: { secondsPerMicroJob: Infinity } }) / 1000} s) or what the commit window gives a verifier's re-run, whichever is shorter, and the run fails (ExecutionTimeoutError); set it for MicroJobs that take more than a few seconds`, positiveInt)
    .option('--model <file|ipfs://cid>', 'a model the job\'s code reads (weights, a palette, a data set): uploaded, named in the job; peers holding it run the job first, and the code gets it before its data')
    .option('--detach', 'print the jobId and exit once the job is funded, announced and its inputs are held by two registered peers, or by one and 30 s more passed (waits up to --timeout for one)')
    .option('--out <dir>', 'where the outputs go (default ./jobmesh-results-<jobId prefix>)')
    .option('--timeout <s>', 'give up following the job after this many seconds (default 1800), and waiting for a peer to hold its inputs after at most 60 (with --detach: only that wait, this long)', positiveInt)
    .option('--force', 'submit and pay even when no connected peer can hold the inputs, or the chain counts fewer active nodes than the job\'s k verifiers and its submitter: by default such a job is refused before anything is uploaded or paid'))
    .action(async (flags: SubmitFlags) => {
      const state: SubmitState = { phase: 'preparing' }
      const controller = new AbortController()
      const made: OutputDir = { path: '' }
      // an interrupted submit wrote no output either (the job goes on without it: results makes the folder again)
      const off = onSubmitInterrupt(io, state, () => { controller.abort() }, () => { discardIfEmpty(made) })
      try {
        // an input file that cannot be read, code that is not a jobmesh WebAssembly module, and an --out that cannot
        // be written fail here, before the client connects (not once the job is paid for)
        for (const [flag, value] of [['--code', flags.code], ['--data', flags.data], ['--model', flags.model]] as const) {
          if (value !== undefined) await checkInputFile(flag, value)
        }
        await checkCode(flags.code)
        if (flags.detach !== true) await prepareOutputDir(flags.out ?? process.cwd(), flags.out === undefined ? 'the current directory' : '--out', made)
        // a folder of another job's outputs would be refused once this one is paid for and released
        if (flags.detach !== true && flags.out !== undefined) await checkOutputFolder(resolve(flags.out))
        await submitAndFollow(flags, io, state, controller.signal)
      } catch (err) {
        // a submit that failed wrote no output: the --out folders it made go again, while empty (as results does)
        discardIfEmpty(made)
        // the aborted steps fail; the interrupt handler prints the line that matters and exits
        if (state.interrupted === true) await new Promise<never>(() => {})
        throw err
      } finally {
        off()
      }
    })
}
