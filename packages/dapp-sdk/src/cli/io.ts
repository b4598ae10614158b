/** The signals that interrupt a command: Ctrl-C, and SIGTERM (`kill`, a service manager, a container's stop). */
export const INTERRUPT_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']

/** Exit code after Ctrl-C (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130

/** Exit code after SIGTERM (128 + SIGTERM), handled like Ctrl-C. */
export const EXIT_TERMINATED = 143

/** The exit code of a command stopped by `signal`: 130 for Ctrl-C, 143 for SIGTERM. */
export function interruptedExitCode (signal: NodeJS.Signals | undefined): number {
  return signal === 'SIGTERM' ? EXIT_TERMINATED : EXIT_INTERRUPTED
}

/** Where the CLI writes (replaceable in tests). */
export interface CliIo {
  out(line: string): void
  err(line: string): void
  /** Stream for progress bars; none = no bars. */
  progressStream?: NodeJS.WritableStream
  /**
   * Registers a handler of Ctrl-C (SIGINT) and of SIGTERM (`kill`, a service manager), handled alike; the handler gets
   * the signal. Returns its remover. None = no signal handling (in-process tests).
   */
  onInterrupt?(handler: (signal: NodeJS.Signals) => void): () => void
  /** Ends the process at once with `code` (after an interrupt). */
  exit?(code: number): void
}

let loading: ((signal: NodeJS.Signals) => void) | undefined

/**
 * Handles Ctrl-C and SIGTERM from now until a command registers its own handler (`processIo.onInterrupt`), which
 * replaces this one: while the program loads and parses its flags nothing is sent, and no moment is left between the
 * two in which a signal could find no handler, or another module's, and be lost while the command went on to pay.
 */
export function interruptUntilCommand (handler: (signal: NodeJS.Signals) => void): void {
  loading = handler
  for (const signal of INTERRUPT_SIGNALS) process.on(signal, handler)
}

export const processIo: CliIo = {
  out: (line) => { process.stdout.write(`${line}\n`) },
  err: (line) => { process.stderr.write(`${line}\n`) },
  progressStream: process.stderr,
  onInterrupt: (handler) => {
    const before = loading
    loading = undefined
    for (const signal of INTERRUPT_SIGNALS) {
      process.on(signal, handler)
      if (before !== undefined) process.off(signal, before)
    }
    return () => { for (const signal of INTERRUPT_SIGNALS) process.off(signal, handler) }
  },
  exit: (code) => { process.exit(code) }
}
