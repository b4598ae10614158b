import { withTimeout } from '@jobmesh/contracts'
import type { JobmeshNode } from './node.js'

/**
 * Whether the node is connected to another peer within `timeoutMs`: true at once when it is, false when none came in
 * time. What a node that was given bootstrap peers waits for before it takes part (a peer before the verifier draw, a
 * client before it reads the network).
 *
 * @throws AbortError when `signal` aborts
 */
export async function connectedWithin (node: Pick<JobmeshNode, 'libp2p'>, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  if (node.libp2p.getPeers().length > 0) return true
  let onConnect: (() => void) | undefined
  try {
    await withTimeout(new Promise<void>((resolve) => {
      onConnect = () => { resolve() }
      node.libp2p.addEventListener('peer:connect', onConnect, { once: true })
    }), { signal, timeoutMs, what: 'a connection to a peer' })
    return true
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err
    return false
  } finally {
    if (onConnect !== undefined) node.libp2p.removeEventListener('peer:connect', onConnect)
  }
}
