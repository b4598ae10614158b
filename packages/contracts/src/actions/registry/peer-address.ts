import { id as keccakText } from 'ethers'
import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** The address a PeerId was registered with (`NodeRegistry.peerIdOwner`), or undefined. @throws the chain errors */
export async function peerAddress (client: Pick<ChainContext, 'contracts' | 'read'>, peerId: string, options?: CallOptions): Promise<string | undefined> {
  const owner = await client.read('NodeRegistry.peerIdOwner', () => client.contracts.nodeRegistry.peerIdOwner(keccakText(peerId)), options)
  return /^0x0{40}$/i.test(owner) ? undefined : owner
}
