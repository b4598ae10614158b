import { id as keccakText } from 'ethers'
import { labelId } from '../../client/labels.js'
import { HardwareMismatchError, PeerIdInUseError, WalletInUseError } from '../../errors.js'
import { nodeInfo } from './node-info.js'
import { peerAddress } from './peer-address.js'
import type { NodeInfo } from './node-info.js'
import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'
import type { RegisterInput } from '../../client/contract-types.js'

/**
 * Why this wallet may not register, or run as, the node `input` names, read before anything is sent: the wallet is
 * registered with another PeerId, the PeerId is another wallet's, or the registered node has other hardware (not of an
 * exiting node). Returns the wallet's node as the registry holds it.
 *
 * @throws WalletInUseError, PeerIdInUseError, HardwareMismatchError, the chain errors
 */
export async function checkRegistration (client: Pick<ChainContext, 'contracts' | 'read' | 'address'>,
  input: Pick<RegisterInput, 'peerId' | 'gpuModel' | 'vramGb'>, options: CallOptions = {}): Promise<NodeInfo> {
  const address = await client.address()
  const info = await nodeInfo(client, undefined, options)
  if (!info.registered) {
    const owner = await peerAddress(client, input.peerId, options)
    // a PeerId banned with its kicked-out owner is the registry's `Banned` to say, not a key to switch to
    if (owner != null && owner.toLowerCase() !== address.toLowerCase() && !await bannedPeerId(client, input.peerId, options)) {
      throw new PeerIdInUseError(`PeerId ${input.peerId} (this data dir's identity) is registered by wallet ${owner}, not by ` +
        `${address}: start this data dir with ${owner}'s key (--key-file), or give wallet ${address} a data dir of its own`)
    }
    return info
  }
  if (info.peerIdHash !== keccakText(input.peerId)) {
    throw new WalletInUseError(`wallet ${address} is registered with another PeerId than ${input.peerId}: another node (data dir) ` +
      'uses this wallet. Start that node (its data dir holds the PeerId), or give this one a wallet of its own; a node whose ' +
      'data dir is lost comes back under a new wallet (the registry binds a wallet to one PeerId)')
  }
  // an exiting node is drawn for nothing and takes no job, whatever hardware it gives: it runs to settle and claim, on
  // the new hardware of an operator who exited for it (refused before, with the advice to exit)
  if (info.exiting) return info
  const [gpuModelId, vramGb] = await client.read(`NodeRegistry.nodeHardware(${address})`,
    async () => await client.contracts.nodeRegistry.nodeHardware(address), options) as [string, bigint]
  if (gpuModelId !== labelId(input.gpuModel) || Number(vramGb) !== input.vramGb) {
    // the registry keeps the model's hash: a node started without --gpu-model registered 'Any', which can be named
    const model = gpuModelId === labelId(input.gpuModel)
      ? input.gpuModel
      : gpuModelId === labelId('Any') ? 'Any: started without --gpu-model' : `another GPU model than ${input.gpuModel}`
    throw new HardwareMismatchError(`wallet ${address} registered its node with ${Number(vramGb)} GB VRAM (${model}), not ` +
      `${input.vramGb} GB VRAM (${input.gpuModel}): the registry keeps the hardware a node registered with and draws it by that; ` +
      'start with the registered --vram and --gpu-model; for new hardware, `jobmesh exit` and `jobmesh withdraw` first, then start with it (the node registers again)')
  }
  return info
}

async function bannedPeerId (client: Pick<ChainContext, 'contracts' | 'read'>, peerId: string, options: CallOptions): Promise<boolean> {
  return await client.read('NodeRegistry.bannedPeerId', () => client.contracts.nodeRegistry.bannedPeerId(keccakText(peerId)), options) as boolean
}
