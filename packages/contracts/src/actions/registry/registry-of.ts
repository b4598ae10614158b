import { Contract, isError } from 'ethers'
import { jobEscrowAbi } from '../../artifacts.generated.js'
import { DEFAULT_RPC_TIMEOUT_MS } from '../../constants.js'
import { EscrowNotFoundError } from '../../errors.js'
import { withTimeout } from '../../client/wait.js'
import { wrapChainError } from '../../client/wrap-error.js'
import type { CallOptions } from '../../client/client-types.js'
import type { Provider } from 'ethers'

/** A failed read that says the contract there does not answer as a JobEscrow (a revert, or nothing to decode). */
function notAnswered (err: Error): boolean {
  return err.name === 'ChainRevertError' || (err.name === 'ChainRequestError' && isError(err.cause, 'BAD_DATA'))
}

/**
 * The NodeRegistry an escrow settles against (`JobEscrow.registry()`): completes a deployment known by its escrow
 * only, before a chain client exists. It checks that a JobEscrow answers there (`registry()` and `MIN_VERIFIERS()`:
 * the IncentivePool and the ModelRegistry have a `registry()` too), so that a wrong address fails here, in words,
 * instead of as an undecodable result of the first read.
 *
 * @throws EscrowNotFoundError (no contract at the address, or not a JobEscrow), and the chain errors
 */
export async function registryOf (provider: Provider, jobEscrow: string, options: CallOptions & { timeoutMs?: number } = {}): Promise<string> {
  const escrow = new Contract(jobEscrow, jobEscrowAbi, provider)
  const timeoutMs = options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS
  const read = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await withTimeout(fn(), { timeoutMs, what, signal: options.signal })
    } catch (err) {
      throw wrapChainError(err, what)
    }
  }
  try {
    const [registry] = await Promise.all([
      read('JobEscrow.registry', () => escrow.getFunction('registry')() as Promise<string>),
      read('JobEscrow.MIN_VERIFIERS', () => escrow.getFunction('MIN_VERIFIERS')() as Promise<bigint>)
    ])
    return String(registry)
  } catch (err) {
    if (!notAnswered(err as Error)) throw err
    const code = await read('getCode', () => provider.getCode(jobEscrow))
    const chainId = await read('getNetwork', () => provider.getNetwork()).then(n => Number(n.chainId), () => undefined)
    throw new EscrowNotFoundError(jobEscrow, code === '0x' ? 'no-code' : 'not-an-escrow', chainId, { cause: err })
  }
}
