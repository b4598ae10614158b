import { packageVersion } from '@jobmesh/peer/package-version'
import { withoutLeadingSeparator } from '@jobmesh/peer/leading-separator'
import { terminalSafe } from '@jobmesh/peer/terminal-text'
import { Command, CommanderError } from 'commander'
import { describeCommand } from './describe-command.js'
import { jobCommands } from './job-commands.js'
import { processIo } from './io.js'
import { submitCommand } from './submit-command.js'
import type { CliIo } from './io.js'

/** Exit codes: 0 ok, 1 the operation failed, 2 bad usage (flags, config, invalid job), 130 interrupted. */
export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2

// InvalidMultiaddrError: a --bootstrap address that starts with / but does not parse (the node parses it)
const USAGE_ERRORS = new Set(['InvalidJobError', 'InvalidConfigError', 'InvalidCodeError', 'InvalidMultiaddrError'])

/** What a failing command was about: the job its `<jobId>` argument named, for its --json error document. */
interface Subject { jobId?: string }

function program (io: CliIo, subject: Subject): Command {
  const root = new Command('jobmesh-dapp')
    .description('Submit jobs to a jobmesh network, follow them, wait for the escrow release and fetch the results.\n' +
      'Connection flags also read JOBMESH_RPC_URL, JOBMESH_DEPLOYMENT, JOBMESH_BOOTSTRAP and JOBMESH_PRIVATE_KEY (jobmesh devnet prints them).')
    .version(packageVersion(new URL('../../package.json', import.meta.url)), '-V, --version', 'print the version of jobmesh-dapp')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .showHelpAfterError('(run with --help for usage)')
    .hook('preAction', (_root, command) => {
      const i = command.registeredArguments.findIndex(a => a.name() === 'jobId')
      const jobId: unknown = command.processedArgs[i]
      if (i >= 0 && typeof jobId === 'string') subject.jobId = jobId
    })
  submitCommand(root, io)
  jobCommands(root, io)
  describeCommand(root, io)
  return root
}

/**
 * Runs the CLI with `argv` (without node and the script) and returns the exit code: 0 ok, 1 failed, 2 bad usage.
 */
export async function run (argv: string[], output: CliIo = processIo): Promise<number> {
  const io = terminalIo(output)
  const subject: Subject = {}
  try {
    await program(io, subject).parseAsync(withoutLeadingSeparator(argv), { from: 'user' })
    return EXIT_OK
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return EXIT_OK
      // commander printed the message on stderr; a script reading --json gets it on stdout too
      if (argv.includes('--json')) io.out(JSON.stringify({ error: { name: 'UsageError', code: err.code, message: err.message } }))
      return EXIT_USAGE
    }
    const e = err as Error & { issues?: Array<{ path: string, message: string }>, jobId?: unknown }
    if (e.name === 'InvalidJobError' && e.issues !== undefined) {
      io.err('invalid job:')
      for (const i of e.issues) io.err(`  ${i.path}: ${i.message}`)
    } else {
      io.err(`${e.name}: ${e.message}`)
    }
    // with --json a script reads one document on stdout, a failure too
    // a failure about a job names it: the job a submit paid for (it timed out following it), the job a command named
    const jobId = typeof e.jobId === 'string' ? e.jobId : subject.jobId
    const job = jobId === undefined ? {} : { jobId }
    if (argv.includes('--json')) io.out(JSON.stringify({ error: { name: e.name, message: e.message, ...job, ...(e.issues === undefined ? {} : { issues: e.issues }) } }))
    return USAGE_ERRORS.has(e.name) ? EXIT_USAGE : EXIT_FAILED
  }
}

/**
 * What the CLI prints goes out without control characters (line breaks kept): job stories, failure reasons and peers'
 * profiles come from the network (`terminalSafe`). Progress bars draw on their own stream.
 */
function terminalIo (io: CliIo): CliIo {
  return { ...io, out: line => { io.out(terminalSafe(line, { lines: true })) }, err: line => { io.err(terminalSafe(line, { lines: true })) } }
}
