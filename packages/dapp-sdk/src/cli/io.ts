/** Where the CLI writes (replaceable in tests). */
export interface CliIo {
  out(line: string): void
  err(line: string): void
  /** Stream for progress bars; none = no bars. */
  progressStream?: NodeJS.WritableStream
}

export const processIo: CliIo = {
  out: (line) => { process.stdout.write(`${line}\n`) },
  err: (line) => { process.stderr.write(`${line}\n`) },
  progressStream: process.stderr
}
