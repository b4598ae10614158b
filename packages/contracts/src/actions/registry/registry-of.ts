import { Contract } from 'ethers'
import { jobEscrowAbi } from '../../artifacts.generated.js'
import { DEFAULT_RPC_TIMEOUT_MS } from '../../constants.js'
import { withTimeout } from '../../client/wait.js'
import { wrapChainError } from '../../client/wrap-error.js'
import type { CallOptions } from '../../client/client-types.js'
import type { Provider } from 'ethers'

/**
 * The NodeRegistry an escrow settles against (`JobEscrow.registry()`): completes a deployment known by its escrow
 * only, before a chain client exists.
 *
 * @throws the chain errors
 */
export async function registryOf (provider: Provider, jobEscrow: string, options: CallOptions & { timeoutMs?: number } = {}): Promise<string> {
  const escrow = new Contract(jobEscrow, jobEscrowAbi, provider)
  try {
    const read = escrow.getFunction('registry')() as Promise<string>
    return String(await withTimeout(read, { timeoutMs: options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS, what: 'JobEscrow.registry', signal: options.signal }))
  } catch (err) {
    throw wrapChainError(err, 'JobEscrow.registry')
  }
}
