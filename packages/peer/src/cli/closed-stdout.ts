/**
 * Keeps a CLI alive when the reader of its stdout goes away (`jobmesh status | head -3`, `jobmesh-dapp status <id> |
 * head -3`): the write fails with EPIPE, which Node raises as an `error` event on `process.stdout` and, with no
 * listener, as a crash with a stack trace. From then on nothing more can be printed there, so the command goes on
 * without its stdout and ends with its usual exit code (a running peer keeps running, a `submit` that is funding a
 * job still finishes the submission). Other errors stay fatal. Both CLIs' entry points call it
 * (`@jobmesh/peer/closed-stdout`).
 */
export function ignoreClosedStdout (stdout: NodeJS.WriteStream = process.stdout): void {
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return
    throw err
  })
}
