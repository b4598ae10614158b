import { constants } from 'node:os'
import { Command, CommanderError } from 'commander'
import { EXIT_FAILURE, EXIT_USAGE, MAX_CAUSE_CHARS } from './constants.js'
import { withoutLeadingSeparator } from './leading-separator.js'
import { packageVersion } from './package-version.js'
import { endLoadingInterrupt, endLoadingInterruptAfterPending } from './signals.js'
import { terminalSafe } from './terminal-text.js'
import { DATASTORE_RECOVERY } from '../datastore-recovery.js'
import { claimCommand } from './commands/claim.js'
import { exitCommand } from './commands/exit.js'
import { withdrawCommand } from './commands/withdraw.js'
import { devnetCommand } from './commands/devnet.js'
import { idCommand } from './commands/id.js'
import { startCommand } from './commands/start.js'
import { statusCommand } from './commands/status.js'
import type { InterruptedError } from './errors.js'

/**
 * Commands of the DApp's CLI, `jobmesh-dapp`, that an operator may type to `jobmesh` (a job's story: `describe`). The
 * SDK depends on this package, not the other way round, so the list is written here and held to the DApp CLI's own by
 * a test (`dapp-sdk/test/operator-cli-hint.test.ts`: every command `jobmesh-dapp --help` lists but `status`).
 */
const DAPP_COMMANDS: ReadonlySet<string> = new Set(['submit', 'wait', 'results', 'list', 'refund', 'describe'])

/** Commands whose action takes Ctrl-C over from the loading handler itself (`watchInterrupt`). */
const HANDS_OVER: ReadonlySet<string> = new Set(['start', 'devnet'])

/** Builds the `jobmesh` command line. */
export function createProgram (): Command {
  const program = new Command('jobmesh')
    .description('jobmesh: a peer-to-peer job network (libp2p + Yjs + helia + an escrow contract)')
    .version(packageVersion(new URL('../../package.json', import.meta.url)), '-V, --version', 'print the version of jobmesh')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: s => process.stdout.write(s),
      writeErr: s => process.stderr.write(s)
    })
  startCommand(program)
  idCommand(program)
  statusCommand(program)
  claimCommand(program)
  exitCommand(program)
  withdrawCommand(program)
  devnetCommand(program)
  for (const cmd of program.commands) {
    cmd.exitOverride().showHelpAfterError('(run with --help for usage)')
  }
  // the bin's handler of a signal while loading ends as a command runs; start and devnet hand it over to their own
  // (watchInterrupt), which must be in place first
  program.hook('preAction', async (_program, command) => {
    if (!HANDS_OVER.has(command.name())) await endLoadingInterruptAfterPending()
  })
  return program
}

/**
 * Runs the CLI and returns the process exit code: 0 on success, 2 for bad flags or arguments, 1 for a failure, 128 +
 * the signal's number (130 for Ctrl-C) when a signal stopped a command before it was ready.
 * Errors are printed as one clear line (`error: ...`), with the cause where it helps.
 */
export async function run (argv: string[]): Promise<number> {
  const program = createProgram()
  try {
    await program.parseAsync([...argv.slice(0, 2), ...withoutLeadingSeparator(argv.slice(2))])
    return 0
  } catch (err) {
    const code = exitCodeFor(err)
    // commander printed `unknown command 'describe'`; say where that command is (the first word that is no option)
    const name = argv.slice(2).find(a => !a.startsWith('-')) ?? ''
    if (err instanceof CommanderError && err.code === 'commander.unknownCommand' && DAPP_COMMANDS.has(name)) {
      process.stderr.write(`'${name}' is a command of the DApp CLI: npx jobmesh-dapp ${name} ... (npx jobmesh-dapp ${name} --help)\n`)
    }
    // with --json a script reads one document on stdout, a failure too (the person reads stderr)
    if (code !== 0 && argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: errorDocument(err) })}\n`)
    return code
  } finally {
    // also when no action ran (--help, --version, a usage error)
    endLoadingInterrupt()
  }
}

function errorDocument (err: unknown): { name: string, code?: string, message: string } {
  if (err instanceof CommanderError) return { name: 'UsageError', code: err.code, message: err.message }
  const e = err as Error | undefined
  return { name: e?.name ?? 'Error', message: e?.message ?? String(err) }
}

function exitCodeFor (err: unknown): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
      return 0
    }
    return EXIT_USAGE
  }
  const e = err as Error
  if (e?.name === 'InterruptedError') {
    const signal = (e as InterruptedError).signal
    process.stderr.write(`${terminalSafe(e.message, { lines: true })}\n`)
    return 128 + constants.signals[signal]
  }
  if (e?.name === 'UsageError' || e?.name === 'InvalidMultiaddrError') {
    process.stderr.write(`error: ${terminalSafe(e.message, { lines: true })}\n(run with --help for usage)\n`)
    return EXIT_USAGE
  }
  for (const line of failureLines(err)) process.stderr.write(`${line}\n`)
  return EXIT_FAILURE
}

/**
 * What a failed command prints: `error: <message>`, its cause when the message does not already say it, and what to
 * do about a damaged datastore (LevelDB's `LEVEL_CORRUPTION` or `LEVEL_IO_ERROR`, anywhere in the cause chain).
 */
export function failureLines (err: unknown): string[] {
  const e = err as Error | undefined
  const message = e?.message ?? String(err)
  const lines = [`error: ${terminalSafe(message, { lines: true })}`]
  // a revert decoded into the message: ethers' cause says only that it could not name the custom error; an escrow
  // address that answers no JobEscrow view: the message says so, the cause is the view's bare revert
  const decoded = (e?.name === 'ChainRevertError' && (e as { errorName?: unknown }).errorName !== 'UnknownRevert') || e?.name === 'EscrowNotFoundError'
  const cause = decoded ? undefined : causeLine((e as { cause?: unknown })?.cause)
  if (cause != null && !message.includes(cause)) lines.push(`  cause: ${terminalSafe(cause)}`)
  if (levelDamage(err)) {
    lines.push(`  the peer's datastore (<data dir>/datastore) is damaged: ${DATASTORE_RECOVERY}`)
  }
  return lines
}

/** Whether LevelDB reported a damaged store anywhere in the cause chain. */
function levelDamage (err: unknown): boolean {
  for (let e = err as { code?: unknown, cause?: unknown } | undefined, depth = 0; e != null && depth < 8; e = e.cause as typeof e, depth++) {
    if (e.code === 'LEVEL_CORRUPTION' || e.code === 'LEVEL_IO_ERROR') return true
  }
  return false
}

/** Most of a cause a person reads: ethers' short message (not its request and transaction dump), one line, capped. */
function causeLine (cause: unknown): string | undefined {
  const c = cause as { shortMessage?: unknown, message?: unknown } | undefined
  const text = typeof c?.shortMessage === 'string' ? c.shortMessage : typeof c?.message === 'string' ? c.message : undefined
  const line = text?.split('\n')[0].trim()
  if (line == null || line === '') return undefined
  return line.length > MAX_CAUSE_CHARS ? `${line.slice(0, MAX_CAUSE_CHARS)}...` : line
}
