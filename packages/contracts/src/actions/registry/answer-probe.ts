import { solveProbe } from '../../probe.js'
import { probeOf } from './probe-of.js'
import type { ChainContext } from '../../client/context.js'
import type { TxOptions, TxResult } from '../../client/tx-sender.js'

/**
 * Answers the signer's open probe (`NodeRegistry.answerProbe`): solves it and sends the nonce. Resolves undefined
 * when no probe is open. @throws ChainRevertError (`ProbeExpired`) and the other chain errors
 */
export async function answerProbe (client: Pick<ChainContext, 'contracts' | 'read' | 'address' | 'registryTx'>, options: TxOptions = {}): Promise<TxResult | undefined> {
  const me = await client.address()
  const probe = await probeOf(client, me, options)
  if (probe.assignedBlock === 0) return undefined
  const nonce = solveProbe(probe.challenge, me, { signal: options.signal })
  return client.registryTx('NodeRegistry.answerProbe', 'answerProbe', [nonce], options)
}
