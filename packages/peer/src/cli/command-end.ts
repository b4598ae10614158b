import { COMMAND_END_GRACE_MS } from './constants.js'

/**
 * Ends a CLI whose command has returned `code`. The process exits on its own once nothing is left running, as it
 * normally does; what a failed command could not cancel (ethers abandons a request to an RPC endpoint that accepts
 * the connection and never answers, and its socket keeps the event loop alive) would otherwise keep it running after
 * its error was printed. So a failed command's process exits `COMMAND_END_GRACE_MS` after its output was handed to
 * the OS, whatever is still open. A command that succeeded ends as it always did: its output (a pipe to a slow reader)
 * is never cut short. Both CLIs' entry points call it (`@jobmesh/peer/command-end`).
 */
export function endCommand (code: number, graceMs = COMMAND_END_GRACE_MS): void {
  process.exitCode = code
  if (code === 0) return
  const handedOver = async (stream: NodeJS.WriteStream): Promise<void> => { await new Promise(resolve => { stream.write('', resolve) }) }
  void Promise.all([handedOver(process.stdout), handedOver(process.stderr)])
    .then(() => { setTimeout(() => { process.exit(code) }, graceMs).unref() })
}
