import { AbortError, anySignal } from '@jobmesh/contracts'
import { REPLICATION_PROTOCOL } from '@jobmesh/peer/replication'
import type { JobmeshNode } from '@jobmesh/peer/node'

/** What the client's node knows of the peers that could hold a job's inputs. */
export interface HolderPeers {
  /** Connected peers. */
  connected: number
  /** Of those, the ones identify reported speaking the replication protocol (jobmesh peers, not DApp clients). */
  holders: string[]
}

/** The connected peers that speak {@link REPLICATION_PROTOCOL} (as identify reported them). */
export async function holderPeers (node: Pick<JobmeshNode, 'libp2p'>): Promise<HolderPeers> {
  const libp2p = node.libp2p
  const connected = libp2p.getPeers()
  const holders: string[] = []
  for (const peer of connected) {
    const known = await libp2p.peerStore.get(peer).catch(() => undefined)
    if (known?.protocols.includes(REPLICATION_PROTOCOL) === true) holders.push(peer.toString())
  }
  return { connected: connected.length, holders }
}

/**
 * Waits until a connected peer speaks the replication protocol, up to `timeoutMs` (a peer that just connected is
 * known to speak it once identify ran). With no peer connected at all it answers at once: the client already waited
 * for its bootstrap connection. Resolves with what it saw last; rejects only when `signal` aborts.
 */
export async function waitForHolderPeer (node: Pick<JobmeshNode, 'libp2p'>, timeoutMs: number, signal?: AbortSignal): Promise<HolderPeers> {
  const aborted = (): AbortError => new AbortError('aborted', { cause: signal?.reason })
  // a function, not a narrowed property: the signal may abort while this waits
  const stopped = (): boolean => signal?.aborted === true
  if (stopped()) throw aborted()
  const libp2p = node.libp2p
  let seen = await holderPeers(node)
  if (seen.holders.length > 0 || seen.connected === 0) return seen
  const wait = anySignal([signal], timeoutMs)
  let wake: (() => void) | undefined
  const onEvent = (): void => { wake?.() }
  wait.addEventListener('abort', onEvent, { once: true })
  libp2p.addEventListener('peer:identify', onEvent)
  libp2p.addEventListener('peer:update', onEvent)
  libp2p.addEventListener('peer:connect', onEvent)
  try {
    while (!wait.aborted) {
      const next = new Promise<void>((resolve) => { wake = resolve })
      // an event between the last check and this promise is caught by checking again
      seen = await holderPeers(node)
      if (seen.holders.length > 0) return seen
      if (wait.aborted) break
      await next
    }
    if (stopped()) throw aborted()
    return await holderPeers(node)
  } finally {
    wait.removeEventListener('abort', onEvent)
    libp2p.removeEventListener('peer:identify', onEvent)
    libp2p.removeEventListener('peer:update', onEvent)
    libp2p.removeEventListener('peer:connect', onEvent)
  }
}
