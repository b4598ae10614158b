import { logger } from '@libp2p/logger'
import { labelId } from '../../client/labels.js'
import { signPeerBinding } from '../../peer-binding.js'
import { checkRegistration } from './check-registration.js'
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
 * @throws the refusals of {@link checkRegistration} (WalletInUseError, PeerIdInUseError, HardwareMismatchError),
 * ChainRevertError (e.g. `Banned`), PeerKeyTypeError, and the other chain errors
 */
export async function ensureRegistered (client: Pick<ChainContext, 'provider' | 'contracts' | 'deployment' | 'read' | 'registryTx' | 'address'>,
  input: RegisterInput, options: TxOptions = {}): Promise<RegisterResult> {
  const { read, registryTx, address, deployment } = client
  const info = await checkRegistration(client, input, options)
  if (!info.registered) {
    const chainId = deployment.chainId ?? Number((await read('getNetwork', () => client.provider.getNetwork(), options)).chainId)
    const proof = await signPeerBinding(input.privateKey, { chainId, nodeRegistry: deployment.nodeRegistry }, await address())
    const args = [input.peerId, proof.publicKey, proof.signature, labelId(input.gpuModel), input.vramGb]
    const tx = await registryTx('NodeRegistry.register', 'register', args, options, input.stake)
    log('registered %s (%s) with stake %s in block %d', input.peerId, await address(), input.stake, tx.blockNumber)
    return { registered: true, stakeAdded: input.stake, stake: input.stake, resumed: false, exiting: false }
  }
  if (info.exiting) {
    log('%s asked to exit: not resumed, no stake added', await address())
    return { registered: false, stakeAdded: 0n, stake: info.stake, resumed: false, exiting: true }
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
