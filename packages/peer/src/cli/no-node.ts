import type { NodeInfo } from '@jobmesh/contracts'

/**
 * Why a wallet that is not a registered node has no node to act for: it withdrew its stake (the registry keeps a
 * withdrawn node's PeerId hash, for a later re-registration), or it never registered (no hash). `subject` names the
 * wallet: its address, or `it`.
 */
export function noNodeWords (subject: string, info: Pick<NodeInfo, 'peerIdHash'>): string {
  return /^0x0*[1-9a-f]/i.test(info.peerIdHash)
    ? `${subject} withdrew its node's stake: it is no longer a registered node and earns no more share`
    : `${subject} is not a registered node: a node's wallet is the one its \`jobmesh start\` used`
}
