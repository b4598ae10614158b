import { JsonRpcProvider, Network } from 'ethers'
import { DEFAULT_RPC_TIMEOUT } from './constants.js'
import { AbortError, RpcUnreachableError } from './errors.js'

/** Options of {@link createProvider}. */
export interface ProviderInit {
  /** The chain id, when known: skips network detection entirely. */
  chainId?: number
  /** Polling interval of the provider in ms (ethers' default is 4 000; 100 suits a local anvil). */
  pollingInterval?: number
}

/**
 * A `JsonRpcProvider` set up the way anvil needs it: a static network (no repeated `eth_chainId` probes, no
 * "network changed" errors) and no result cache (`cacheTimeout: -1`; a cached `eth_blockNumber` or nonce breaks
 * tests that mine blocks quickly).
 */
export function createProvider (rpcUrl: string, init: ProviderInit = {}): JsonRpcProvider {
  const network = init.chainId === undefined ? undefined : Network.from(init.chainId)
  const provider = new JsonRpcProvider(rpcUrl, network, {
    staticNetwork: network ?? true,
    cacheTimeout: -1,
    ...(init.pollingInterval === undefined ? {} : { pollingInterval: init.pollingInterval })
  })
  return provider
}

/**
 * Asks the endpoint for its chain id, with a timeout; throws {@link RpcUnreachableError} when it does not answer.
 * Uses plain `fetch` so a dead endpoint does not leave ethers retrying in the background.
 */
/** Says why an endpoint did not answer: refused, unknown host, or silent (`fetch` hides the cause one level down). */
function unreachable (rpcUrl: string, err: Error, timeout: number): string {
  const cause = err.cause as { code?: string, message?: string } | undefined
  const code = cause?.code
  const at = URL.canParse(rpcUrl) ? new URL(rpcUrl).host : rpcUrl
  // fetch never dials the ports of its block list (1, 9, 25, ...)
  if (cause?.message === 'bad port') return `connection refused at ${at} (fetch does not connect to this port)`
  if (code === 'ECONNREFUSED') return `connection refused at ${at} (is the chain running? jobmesh devnet prints JOBMESH_RPC_URL)`
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `unknown host in ${rpcUrl}`
  if (err.name === 'TimeoutError') return `RPC endpoint ${rpcUrl} did not answer eth_chainId within ${timeout} ms`
  return `RPC endpoint ${rpcUrl} failed: ${err.message}${code == null ? '' : ` (${code})`}`
}

export async function probeChainId (rpcUrl: string, init: { timeout?: number, signal?: AbortSignal } = {}): Promise<number> {
  init.signal?.throwIfAborted()
  const timeout = init.timeout ?? DEFAULT_RPC_TIMEOUT
  const signals = [AbortSignal.timeout(timeout)]
  if (init.signal !== undefined) signals.push(init.signal)
  let body: { result?: string, error?: { message?: string } }
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.any(signals)
    })
    if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`)
    body = await res.json() as typeof body
  } catch (err) {
    if (init.signal?.aborted === true) throw new AbortError('aborted while probing the RPC endpoint')
    throw new RpcUnreachableError(unreachable(rpcUrl, err as Error, timeout), { cause: err })
  }
  if (typeof body.result !== 'string') {
    throw new RpcUnreachableError(`RPC endpoint ${rpcUrl} answered eth_chainId with an error: ${body.error?.message ?? JSON.stringify(body)}`)
  }
  return Number(BigInt(body.result))
}
