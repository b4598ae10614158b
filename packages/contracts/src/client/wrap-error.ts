import { decodeContractError } from '../decode.js'
import { isError } from 'ethers'
import { ChainRequestError, ChainRevertError, RpcUnreachableError } from '../errors.js'

const PASS_THROUGH = new Set(['AbortError', 'ChainTimeoutError', 'ChainRevertError', 'RpcUnreachableError', 'ChainRequestError', 'NoSignerError'])

function short (err: unknown): string {
  const e = err as { shortMessage?: string, message?: string }
  return (e?.shortMessage ?? e?.message ?? String(err)).split('\n')[0].slice(0, 300)
}

function plainArgs (args: unknown): unknown[] {
  try {
    return Array.from(args as ArrayLike<unknown>)
  } catch {
    return []
  }
}

/** Node's and undici's codes for a connection that failed or broke (ethers passes Node's error through as it is). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE',
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT'
])

/** The `code` of `err` and of the errors it wraps (`cause`, ethers' `error`), outermost first. */
function codes (err: unknown): string[] {
  const found: string[] = []
  let at = err as { code?: unknown, cause?: unknown, error?: unknown } | undefined
  for (let depth = 0; at != null && typeof at === 'object' && depth < 4; depth++) {
    if (typeof at.code === 'string') found.push(at.code)
    at = (at.cause ?? at.error) as typeof at
  }
  return found
}

/** True when `err` says the endpoint could not be reached (as opposed to an answer with an error). */
export function isUnreachable (err: unknown): boolean {
  if (isError(err, 'NETWORK_ERROR') || isError(err, 'TIMEOUT')) return true
  if (codes(err).some((code) => UNREACHABLE_CODES.has(code))) return true
  // ethers reports a dead endpoint as SERVER_ERROR without a response status
  return isError(err, 'SERVER_ERROR') && (err as { response?: { statusCode?: number } }).response?.statusCode == null
}

/** Wraps an ethers/RPC error in a typed error: ChainRevertError (decoded custom error), RpcUnreachableError, ChainRequestError. */
export function wrapChainError (err: unknown, what: string): Error {
  if (err instanceof Error && PASS_THROUGH.has(err.name)) return err
  const decoded = decodeContractError(err)
  if (decoded !== undefined) {
    const args = plainArgs(decoded.args)
    return new ChainRevertError(`${what} reverted: ${decoded.name}(${args.map(String).join(', ')})`, decoded.name, args, { cause: err })
  }
  if (isError(err, 'CALL_EXCEPTION')) {
    const revert = (err as { revert?: { name?: string, args?: unknown } }).revert
    const name = revert?.name ?? 'UnknownRevert'
    return new ChainRevertError(`${what} reverted: ${short(err)}`, name, plainArgs(revert?.args), { cause: err })
  }
  if (isUnreachable(err)) return new RpcUnreachableError(`${what}: RPC endpoint unreachable (${short(err)})`, { cause: err })
  return new ChainRequestError(`${what} failed: ${short(err)}`, { cause: err })
}
