/** Where the CLI writes (replaceable in tests). */
export interface CliIo {
  out(line: string): void
  err(line: string): void
  /** Stream for progress bars; none = no bars. */
  progressStream?: NodeJS.WritableStream
  /** Registers a Ctrl-C (SIGINT) handler; returns its remover. None = no signal handling (in-process tests). */
  onInterrupt?(handler: () => void): () => void
  /** Ends the process at once with `code` (after an interrupt). */
  exit?(code: number): void
}

export const processIo: CliIo = {
  out: (line) => { process.stdout.write(`${line}\n`) },
  err: (line) => { process.stderr.write(`${line}\n`) },
  progressStream: process.stderr,
  onInterrupt: (handler) => {
    process.on('SIGINT', handler)
    return () => { process.off('SIGINT', handler) }
  },
  exit: (code) => { process.exit(code) }
}
