import { decodeContractError } from '@jobmesh/contracts'
import { isError } from 'ethers'
import { AbortError, ChainError, ContractRevertError, TimeoutError } from '../errors.js'

function shortMessage (err: unknown): string {
  if (err != null && typeof err === 'object') {
    const s = (err as { shortMessage?: unknown }).shortMessage
    if (typeof s === 'string') return s
    const m = (err as { message?: unknown }).message
    if (typeof m === 'string') return m.split('\n')[0].slice(0, 200)
  }
  return String(err)
}

/**
 * Turns an ethers / JSON-RPC failure into a typed SDK error: a revert with a custom error the ABI knows becomes
 * ContractRevertError (its name and arguments decoded), everything else ChainError with the original as `cause`.
 * SDK errors (AbortError, TimeoutError, ...) pass through.
 */
export function wrapChainError (err: unknown, what: string): Error {
  if (err instanceof ContractRevertError || err instanceof ChainError || err instanceof AbortError || err instanceof TimeoutError) {
    return err
  }
  if (err != null && typeof err === 'object') {
    const revert = (err as { revert?: { name?: unknown, args?: unknown } }).revert
    if (revert != null && typeof revert.name === 'string') {
      const args = Array.isArray(revert.args) ? [...revert.args] : []
      return new ContractRevertError(revert.name, args, `${what} reverted: ${revert.name}(${args.map(String).join(', ')})`, { cause: err })
    }
    const decoded = decodeContractError(err)
    if (decoded !== undefined) {
      const args = [...decoded.args]
      return new ContractRevertError(decoded.name, args, `${what} reverted: ${decoded.name}(${args.map(String).join(', ')})`, { cause: err })
    }
    if (isError(err, 'CALL_EXCEPTION')) {
      return new ContractRevertError('', [], `${what} reverted: ${shortMessage(err)}`, { cause: err })
    }
  }
  return new ChainError(`${what} failed: ${shortMessage(err)}`, { cause: err })
}
