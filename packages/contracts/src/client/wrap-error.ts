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

/** ethers' codes for a send the node refused because its nonce is taken: mined already, or held by a pending tx. */
const NONCE_TAKEN_CODES = new Set(['NONCE_EXPIRED', 'REPLACEMENT_UNDERPRICED'])

/** A node's JSON-RPC message for a stale nonce, read only when ethers gave the error no code of its own. */
const NONCE_TAKEN_RPC = /nonce[\s_]*too[\s_]*low|nonce has already been used|OldNonce/i

/** The node's JSON-RPC error object (`{ code, message }`) that `err` carries, outermost first. */
function rpcErrorOf (err: unknown): { code: number, message: string } | undefined {
  let at = err as { code?: unknown, message?: unknown, error?: unknown, info?: { error?: unknown }, cause?: unknown } | undefined
  for (let depth = 0; at != null && typeof at === 'object' && depth < 4; depth++) {
    if (typeof at.code === 'number' && typeof at.message === 'string') return { code: at.code, message: at.message }
    at = (at.error ?? at.info?.error ?? at.cause) as typeof at
  }
  return undefined
}

/**
 * True when the node refused a send because its nonce is taken (ethers `NONCE_EXPIRED`: "nonce too low", the nonce
 * was mined; `REPLACEMENT_UNDERPRICED`: a pending transaction of the same wallet holds it): another sender of the
 * wallet used it. The refused transaction did not enter the pool. Decided by ethers' `code`; only when ethers set
 * none of its own (no code, or `UNKNOWN_ERROR`) by the node's JSON-RPC error message.
 */
export function isNonceTaken (err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code
  if (typeof code === 'string' && code !== 'UNKNOWN_ERROR') return NONCE_TAKEN_CODES.has(code)
  const rpc = rpcErrorOf(code === 'UNKNOWN_ERROR' ? (err as { error?: unknown }).error : err)
  return rpc !== undefined && NONCE_TAKEN_RPC.test(rpc.message)
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
  if (isUnreachable(err)) {
    // a refused connection is most often a chain that is not running (a devnet stopped, an anvil restarted elsewhere)
    const hint = codes(err).includes('ECONNREFUSED') ? ' (is the chain running?)' : ''
    return new RpcUnreachableError(`${what}: RPC endpoint unreachable (${short(err)})${hint}`, { cause: err })
  }
  return new ChainRequestError(`${what} failed: ${short(err)}`, { cause: err })
}
