import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SingleBar } from 'cli-progress'
import { Command, CommanderError, Option } from 'commander'
import { formatEther } from 'ethers'
import { checkCode } from '../code-check.js'
import { clientFrom, withConnectFlags } from './client-options.js'
import { processIo } from './io.js'
import { ether, jobIdArg, nonNegativeInt, positiveInt } from './options.js'
import type { ConnectFlags } from './client-options.js'
import type { CliIo } from './io.js'
import type { JobClient } from '../client.js'
import type { ProgressUpdate } from '../progress.js'

/** Exit codes: 0 ok, 1 the operation failed, 2 bad usage (flags, config, invalid job). */
export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2

const USAGE_ERRORS = new Set(['InvalidJobError', 'InvalidConfigError', 'InvalidCodeError'])

interface SubmitFlags extends ConnectFlags {
  code: string
  data: string
  macroJobs: number
  microPerMacro: number
  blocksPerMicro: number
  blockSize: number
  price: bigint
  verifiers?: number
  deadlineMinutes?: number
  minVram?: number
  gpuModel?: string
  follow: boolean
}

async function withClient<T> (flags: ConnectFlags, fn: (client: JobClient) => Promise<T>): Promise<T> {
  const client = await clientFrom(flags)
  const onSignal = (): void => { void client.stop() }
  process.once('SIGINT', onSignal)
  try {
    return await fn(client)
  } finally {
    process.off('SIGINT', onSignal)
    await client.stop()
  }
}

async function follow (client: JobClient, jobId: string, io: CliIo): Promise<void> {
  let bar: SingleBar | undefined
  let last: ProgressUpdate | undefined
  try {
    for await (const u of client.progress(jobId)) {
      if (bar === undefined && io.progressStream !== undefined) {
        bar = new SingleBar({ stream: io.progressStream, format: 'MicroJobs [{bar}] {value}/{total} {percentage}%', hideCursor: true })
        bar.start(u.total, u.done)
      }
      bar?.update(u.done)
      last = u
    }
  } finally {
    bar?.stop()
  }
  if (last !== undefined) io.out(`done: ${last.done}/${last.total} MicroJobs`)
}

function program (io: CliIo): Command {
  const root = new Command('jobmesh-dapp')
    .description('Submit jobs to a jobmesh network, follow them, wait for the escrow release and fetch the results.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .showHelpAfterError('(run with --help for usage)')

  withConnectFlags(root.command('submit')
    .description('upload code and data, create and fund the job, announce it, show its progress')
    .requiredOption('--code <file>', 'WebAssembly module of the job')
    .requiredOption('--data <file>', 'input data')
    .requiredOption('--macro-jobs <n>', 'MacroJobs', positiveInt)
    .requiredOption('--micro-per-macro <m>', 'MicroJobs per MacroJob', positiveInt)
    .requiredOption('--blocks-per-micro <b>', 'data blocks per MicroJob', positiveInt)
    .requiredOption('--block-size <bytes>', 'bytes per data block', positiveInt)
    .requiredOption('--price <eth>', 'fee paid into the escrow, in ether', ether)
    .option('--verifiers <k>', 'verifiers (default 3)', positiveInt)
    .option('--deadline-minutes <min>', 'minutes until the job may be refunded (default 1440)', positiveInt)
    .option('--min-vram <gb>', 'minimum GPU memory in GB', nonNegativeInt)
    .option('--gpu-model <name>', 'required GPU model (default: any)')
    .option('--no-follow', 'exit after the job is announced'))
    .action(async (flags: SubmitFlags) => {
      await checkCode(flags.code)
      await withClient(flags, async (client) => {
        const job = await client.submit({
          code: flags.code,
          data: flags.data,
          blockSize: flags.blockSize,
          slicing: { macroJobs: flags.macroJobs, microJobsPerMacro: flags.microPerMacro, blocksPerMicro: flags.blocksPerMicro },
          price: flags.price,
          ...(flags.verifiers === undefined ? {} : { verifiers: flags.verifiers }),
          ...(flags.deadlineMinutes === undefined ? {} : { deadline: Date.now() + flags.deadlineMinutes * 60_000 }),
          ...(flags.minVram === undefined && flags.gpuModel === undefined
            ? {}
            : { requirements: { minVramGb: flags.minVram ?? 0, ...(flags.gpuModel === undefined ? {} : { gpuModel: flags.gpuModel }) } })
        }, { onProgress: ({ stage }) => { if (stage !== 'done') io.err(`${stage}...`) } })
        io.out(`jobId: ${job.jobId}`)
        io.out(`specCid: ${job.specCid}`)
        io.out(`tx: ${job.txHash}`)
        io.out(`microJobs: ${job.microJobs.length}`)
        if (flags.follow) await follow(client, job.jobId, io)
      })
    })

  withConnectFlags(root.command('status')
    .description('show the escrow status of a job')
    .argument('<jobId>', 'job id', jobIdArg))
    .action(async (jobId: string, flags: ConnectFlags) => {
      await withClient(flags, async (client) => {
        const j = await client.status(jobId)
        io.out(`status: ${j.status}`)
        io.out(`creator: ${j.creator}`)
        io.out(`fee: ${formatEther(j.fee)} ETH`)
        io.out(`deadline: ${new Date(j.deadline * 1000).toISOString()}`)
        io.out(`microJobs: ${j.macroJobs * j.microJobsPerMacro}`)
        io.out(`rejections: ${j.rejections}`)
        io.out(`resultRoot: ${j.resultRoot}`)
      })
    })

  withConnectFlags(root.command('wait')
    .description('wait until the escrow releases the job')
    .argument('<jobId>', 'job id', jobIdArg)
    .option('--timeout <s>', 'give up after this many seconds (default 1800)', positiveInt)
    .addOption(new Option('--poll <ms>', 'poll interval in ms (default 2000)').argParser(positiveInt)))
    .action(async (jobId: string, flags: ConnectFlags & { timeout?: number, poll?: number }) => {
      await withClient(flags, async (client) => {
        const r = await client.waitForRelease(jobId, {
          ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout * 1000 }),
          ...(flags.poll === undefined ? {} : { pollIntervalMs: flags.poll })
        })
        io.out(`released in block ${r.blockNumber}`)
      })
    })

  withConnectFlags(root.command('results')
    .description('download and verify every MicroJob output into a directory')
    .argument('<jobId>', 'job id', jobIdArg)
    .requiredOption('--out <dir>', 'directory for the outputs (<macro>.<index>.bin)'))
    .action(async (jobId: string, flags: ConnectFlags & { out: string }) => {
      await withClient(flags, async (client) => {
        const outputs = await client.results(jobId)
        await mkdir(flags.out, { recursive: true })
        for (const o of outputs) await writeFile(join(flags.out, `${o.macroIndex}.${o.index}.bin`), o.bytes)
        io.out(`${outputs.length} outputs verified and written to ${flags.out}`)
      })
    })
  return root
}

/**
 * Runs the CLI with `argv` (without node and the script) and returns the exit code: 0 ok, 1 failed, 2 bad usage.
 */
export async function run (argv: string[], io: CliIo = processIo): Promise<number> {
  try {
    await program(io).parseAsync(argv, { from: 'user' })
    return EXIT_OK
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0 ? EXIT_OK : EXIT_USAGE
    }
    const e = err as Error & { issues?: Array<{ path: string, message: string }> }
    if (e.name === 'InvalidJobError' && e.issues !== undefined) {
      io.err('invalid job:')
      for (const i of e.issues) io.err(`  ${i.path}: ${i.message}`)
    } else {
      io.err(`${e.name}: ${e.message}`)
    }
    return USAGE_ERRORS.has(e.name) ? EXIT_USAGE : EXIT_FAILED
  }
}
