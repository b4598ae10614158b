import { logger } from '@libp2p/logger'
import { id as keccakText } from 'ethers'
import { labelId } from '../../client/labels.js'
import { HardwareMismatchError, PeerIdInUseError, WalletInUseError } from '../../errors.js'
import { signPeerBinding } from '../../peer-binding.js'
import { nodeInfo } from './node-info.js'
import { peerAddress } from './peer-address.js'
import { resume } from './resume.js'
import type { ChainContext } from '../../client/context.js'
import type { RegisterInput, RegisterResult } from '../../client/contract-types.js'
import type { TxOptions } from '../../client/tx-sender.js'

const log = logger('jobmesh:chain')

/**
 * Registers the signer's node on first start, proving its PeerId with a signature of the PeerId's key (idempotent);
 * resumes it when the registry paused it; adds stake when it has less than `input.stake`. A node that asked to exit
 * is left as it is (the registry resumes no exiting node, and stake added would only wait out the cooldown).
 *
 * @throws WalletInUseError (registered with another PeerId), PeerIdInUseError (the PeerId is another wallet's),
 * HardwareMismatchError (registered with other hardware than `input` gives; not of an exiting node), ChainRevertError
 * (e.g. `Banned`),
 * PeerKeyTypeError, and the other chain errors
 */
export async function ensureRegistered (client: Pick<ChainContext, 'provider' | 'contracts' | 'deployment' | 'read' | 'registryTx' | 'address'>,
  input: RegisterInput, options: TxOptions = {}): Promise<RegisterResult> {
  const { read, registryTx, address, deployment } = client
  const info = await nodeInfo(client, undefined, options)
  if (!info.registered) {
    const owner = await peerAddress(client, input.peerId, options)
    // a PeerId banned with its kicked-out owner is the registry's `Banned` to say, not a key to switch to
    if (owner != null && owner.toLowerCase() !== (await address()).toLowerCase() && !await bannedPeerId(client, input.peerId, options)) {
      throw new PeerIdInUseError(`PeerId ${input.peerId} (this data dir's identity) is registered by wallet ${owner}, not by ` +
        `${await address()}: start this data dir with ${owner}'s key (--key-file), or give wallet ${await address()} a data dir of its own`)
    }
    const chainId = deployment.chainId ?? Number((await read('getNetwork', () => client.provider.getNetwork(), options)).chainId)
    const proof = await signPeerBinding(input.privateKey, { chainId, nodeRegistry: deployment.nodeRegistry }, await address())
    const args = [input.peerId, proof.publicKey, proof.signature, labelId(input.gpuModel), input.vramGb]
    const tx = await registryTx('NodeRegistry.register', 'register', args, options, input.stake)
    log('registered %s (%s) with stake %s in block %d', input.peerId, await address(), input.stake, tx.blockNumber)
    return { registered: true, stakeAdded: input.stake, stake: input.stake, resumed: false, exiting: false }
  }
  if (info.peerIdHash !== keccakText(input.peerId)) {
    throw new WalletInUseError(`wallet ${await address()} is registered with another PeerId than ${input.peerId}: another node (data dir) ` +
      'uses this wallet. Start that node (its data dir holds the PeerId), or give this one a wallet of its own; a node whose ' +
      'data dir is lost comes back under a new wallet (the registry binds a wallet to one PeerId)')
  }
  if (info.exiting) {
    // drawn for nothing and takes no job, whatever hardware it gives: it runs to settle and claim, on the new hardware
    // of an operator who exited for it (refused before, with the advice to exit)
    log('%s asked to exit: not resumed, no stake added', await address())
    return { registered: false, stakeAdded: 0n, stake: info.stake, resumed: false, exiting: true }
  }
  const [gpuModelId, vramGb] = await read(`NodeRegistry.nodeHardware(${await address()})`,
    async () => await client.contracts.nodeRegistry.nodeHardware(await address()), options) as [string, bigint]
  if (gpuModelId !== labelId(input.gpuModel) || Number(vramGb) !== input.vramGb) {
    // the registry keeps the model's hash: a node started without --gpu-model registered 'Any', which can be named
    const model = gpuModelId === labelId(input.gpuModel)
      ? input.gpuModel
      : gpuModelId === labelId('Any') ? 'Any: started without --gpu-model' : `another GPU model than ${input.gpuModel}`
    throw new HardwareMismatchError(`wallet ${await address()} registered its node with ${Number(vramGb)} GB VRAM (${model}), not ` +
      `${input.vramGb} GB VRAM (${input.gpuModel}): the registry keeps the hardware a node registered with and draws it by that; ` +
      'start with the registered --vram and --gpu-model; for new hardware, `jobmesh exit` and `jobmesh withdraw` first, then start with it (the node registers again)')
  }
  if (info.paused) {
    // paused by the registry after a verification it missed entirely (offline): back into selection
    await resume(client, options)
    log('resumed %s', await address())
  }
  if (info.stake >= input.stake) return { registered: false, stakeAdded: 0n, stake: info.stake, resumed: info.paused, exiting: false }
  const add = input.stake - info.stake
  await registryTx('NodeRegistry.addStake', 'addStake', [], options, add)
  return { registered: false, stakeAdded: add, stake: input.stake, resumed: info.paused, exiting: false }
}

async function bannedPeerId (client: Pick<ChainContext, 'contracts' | 'read'>, peerId: string, options: TxOptions): Promise<boolean> {
  return await client.read('NodeRegistry.bannedPeerId', () => client.contracts.nodeRegistry.bannedPeerId(keccakText(peerId)), options) as boolean
}
