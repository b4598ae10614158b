/** The signals that interrupt a command: Ctrl-C, and SIGTERM (`kill`, a service manager, a container's stop). */
export const INTERRUPT_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']

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

export const processIo: CliIo = {
  out: (line) => { process.stdout.write(`${line}\n`) },
  err: (line) => { process.stderr.write(`${line}\n`) },
  progressStream: process.stderr,
  onInterrupt: (handler) => {
    for (const signal of INTERRUPT_SIGNALS) process.on(signal, handler)
    return () => { for (const signal of INTERRUPT_SIGNALS) process.off(signal, handler) }
  },
  exit: (code) => { process.exit(code) }
}
