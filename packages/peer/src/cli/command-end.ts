import { COMMAND_END_GRACE_MS } from './constants.js'

/**
 * Ends a CLI whose command has returned `code`. The process exits on its own once nothing is left running, as it
 * normally does; what a failed command could not cancel (ethers abandons a request to an RPC endpoint that accepts
 * the connection and never answers, and its socket keeps the event loop alive) would otherwise keep it running after
 * its error was printed. So it exits `COMMAND_END_GRACE_MS` after, whatever is still open (what is queued for a pipe
 * has that long to drain). Both CLIs' entry points call it (`@jobmesh/peer/command-end`).
 */
export function endCommand (code: number, graceMs = COMMAND_END_GRACE_MS): void {
  process.exitCode = code
  setTimeout(() => { process.exit(code) }, graceMs).unref()
}
