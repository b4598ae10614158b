// Peer processes of the multi-process benches (coordination, gossip-cost): each child is stopped the same way.

/**
 * Asks every child still running to stop (`{ type: 'stop' }` over IPC) and waits for it to exit; one that has not
 * exited within 10 s is killed. `children`: `{ child, exited }` (the ChildProcess and a promise of its exit).
 */
export async function stopChildren (children) {
  await Promise.all(children.map(async ({ child, exited }) => {
    if (child.exitCode != null || child.signalCode != null) return
    child.send({ type: 'stop' }, () => {})
    const timer = setTimeout(() => { child.kill('SIGKILL') }, 10_000)
    await exited
    clearTimeout(timer)
  }))
}
