import { anySignal } from './client/wait.js'
import { DEFAULT_RPC_TIMEOUT_MS } from './constants.js'
import { AbortError, JsonRpcError, RpcUnreachableError } from './errors.js'

/** Options of {@link rpcCall}. */
export interface RpcCallInit {
  /** How long the call may take, in ms (`DEFAULT_RPC_TIMEOUT_MS` when omitted). */
  timeout?: number
  /** Aborts the call: it then rejects with {@link AbortError}. */
  signal?: AbortSignal
}

/**
 * One JSON-RPC call over plain `fetch`, with a timeout: resolves to the answer's `result`. Throws
 * {@link RpcUnreachableError} when the endpoint does not answer (refused, unknown host, timeout, HTTP error, no JSON),
 * {@link JsonRpcError} when it answers with an error object, {@link AbortError} when `init.signal` aborts it.
 * Unlike an ethers provider it leaves nothing retrying in the background when the endpoint is dead.
 */
export async function rpcCall (rpcUrl: string, method: string, params: readonly unknown[], init: RpcCallInit = {}): Promise<unknown> {
  init.signal?.throwIfAborted()
  const timeout = init.timeout ?? DEFAULT_RPC_TIMEOUT_MS
  let body: { result?: unknown, error?: { message?: unknown, code?: unknown } | null } | null
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: anySignal([init.signal], timeout)
    })
    if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`)
    body = await res.json() as typeof body
  } catch (err) {
    if (init.signal?.aborted === true) throw new AbortError(`aborted while calling ${method} at the RPC endpoint`)
    throw new RpcUnreachableError(unreachable(rpcUrl, method, err as Error, timeout), { cause: err })
  }
  const error = body?.error
  if (error != null) {
    const message = typeof error.message === 'string' ? error.message : JSON.stringify(error)
    throw new JsonRpcError(method, message, typeof error.code === 'number' ? error.code : undefined)
  }
  return body?.result
}

/** OpenSSL's codes for a plain HTTP answer to a TLS hello (3.0: wrong version number; 3.2 and later: packet length). */
const PLAIN_HTTP_CODES: ReadonlySet<string> = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST'])

/** Says why an endpoint did not answer: refused, unknown host, or silent (`fetch` hides the cause one level down). */
function unreachable (rpcUrl: string, method: string, err: Error, timeout: number): string {
  const cause = err.cause as { code?: string, message?: string } | undefined
  const code = cause?.code
  const at = URL.canParse(rpcUrl) ? new URL(rpcUrl).host : rpcUrl
  if (code === 'ECONNREFUSED') return `connection refused at ${at} (is the chain running? jobmesh devnet prints JOBMESH_RPC_URL)`
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `unknown host in ${rpcUrl}`
  if (err.name === 'TimeoutError') return `RPC endpoint ${rpcUrl} did not answer ${method} within ${timeout} ms`
  // OpenSSL's own text is a line of internals (ssl3_get_record, a source file): the code says it
  if (code !== undefined && PLAIN_HTTP_CODES.has(code)) return `no TLS at ${at} (${code}; an http:// endpoint given as https://?)`
  if (code?.startsWith('ERR_SSL_') === true) return `TLS handshake with ${at} failed (${code})`
  if (cause?.message === 'bad port') return blockedPort(rpcUrl)
  // fetch hides why in its cause
  const why = cause?.message == null || cause.message === '' ? '' : `: ${cause.message}`
  return `RPC endpoint ${rpcUrl} failed: ${err.message}${why}${code == null ? '' : ` (${code})`}`
}

/** fetch refuses the ports of the WHATWG block list (1, 9, 25, 6000, ...) of a URL it parsed: which, and what to do. */
function blockedPort (rpcUrl: string): string {
  return `port ${new URL(rpcUrl).port} of ${rpcUrl} is one that fetch refuses to dial (the block list of 1, 9, 25, 6000 and others): give the chain another port`
}
