import { signPeerBinding } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { id as keccakText } from 'ethers'
import { labelId } from './labels.js'
import type { ChainClient } from './client-types.js'
import type { ChainContext } from './context.js'

const log = logger('jobmesh:chain')

export type RegistryActions = Pick<ChainClient, 'ensureRegistered' | 'nodeInfo' | 'peerAddress'>

/** NodeRegistry: a node's registration, stake and PeerId. */
export function registryActions (context: Pick<ChainContext, 'provider' | 'contracts' | 'deployment' | 'read' | 'registryTx' | 'address'>): RegistryActions {
  const { read, registryTx, address, deployment } = context
  const { nodeRegistry } = context.contracts

  const nodeInfo: ChainClient['nodeInfo'] = async (addr, options) => {
    const a = addr ?? await address()
    const v = await read(`nodeInfo(${a})`, () => nodeRegistry.nodeInfo(a), options)
    return { registered: v.registered, stake: v.stake, eligible: v.eligible, busy: v.busy, score: v.score, peerIdHash: v.peerIdHash, paused: v.paused, exiting: v.exiting, kickedOut: v.kickedOut }
  }

  return {
    async ensureRegistered (input, options = {}) {
      const info = await nodeInfo(undefined, options)
      if (!info.registered) {
        const chainId = deployment.chainId ?? Number((await read('getNetwork', () => context.provider.getNetwork(), options)).chainId)
        const proof = await signPeerBinding(input.privateKey, { chainId, nodeRegistry: deployment.nodeRegistry }, await address())
        const args = [input.peerId, proof.publicKey, proof.signature, labelId(input.gpuModel), input.vramGb]
        const tx = await registryTx('NodeRegistry.register', 'register', args, options, input.stake)
        log('registered %s (%s) with stake %s in block %d', input.peerId, await address(), input.stake, tx.blockNumber)
        return { registered: true, stakeAdded: input.stake, stake: input.stake }
      }
      const expected = keccakText(input.peerId)
      if (info.peerIdHash !== expected) log('address %s is registered with another PeerId', await address())
      if (info.paused) {
        // paused by the registry after a verification it missed entirely (offline): back into selection
        await registryTx('NodeRegistry.resume', 'resume', [], options)
        log('resumed %s', await address())
      }
      if (info.stake >= input.stake) return { registered: false, stakeAdded: 0n, stake: info.stake }
      const add = input.stake - info.stake
      await registryTx('NodeRegistry.addStake', 'addStake', [], options, add)
      return { registered: false, stakeAdded: add, stake: input.stake }
    },
    nodeInfo,
    async peerAddress (peerId, options) {
      const a = await read('peerIdOwner', () => nodeRegistry.peerIdOwner(keccakText(peerId)), options)
      return /^0x0{40}$/i.test(a) ? undefined : a
    }
  }
}
