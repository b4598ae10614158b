import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** A node's registration as `NodeRegistry.nodeInfo` returns it. */
export interface NodeInfo {
  registered: boolean
  stake: bigint
  eligible: boolean
  busy: boolean
  score: bigint
  peerIdHash: string
  paused: boolean
  exiting: boolean
  /**
   * When an exiting node may withdraw (unix seconds, chain time; 0 when it never asked): one exit cooldown after its
   * request, or after its last verification's release if later.
   */
  exitAt: number
  kickedOut: boolean
}

/**
 * Whether `NodeRegistry.activeNodes()` counts the node: registered, and neither paused, exiting nor kicked out (its
 * `_syncNode` rule); only such nodes can be drawn as verifiers.
 */
export function countsActive (info: Pick<NodeInfo, 'registered' | 'paused' | 'exiting' | 'kickedOut'>): boolean {
  return info.registered && !info.paused && !info.exiting && !info.kickedOut
}

/** `NodeRegistry.nodeInfo` of `address` (default: the signer). @throws the chain errors */
export async function nodeInfo (client: Pick<ChainContext, 'contracts' | 'read' | 'address'>, address?: string, options?: CallOptions): Promise<NodeInfo> {
  const a = address ?? await client.address()
  const v = await client.read(`NodeRegistry.nodeInfo(${a})`, () => client.contracts.nodeRegistry.nodeInfo(a), options)
  return {
    registered: v.registered,
    stake: v.stake,
    eligible: v.eligible,
    busy: v.busy,
    score: v.score,
    peerIdHash: v.peerIdHash,
    paused: v.paused,
    exiting: v.exiting,
    exitAt: Number(v.exitAt),
    kickedOut: v.kickedOut
  }
}
