import { JsonRpcProvider, Network } from 'ethers'
import { RpcUnreachableError } from './errors.js'
import { rpcCall } from './rpc-call.js'
import type { JsonRpcError } from './errors.js'
import type { RpcCallInit } from './rpc-call.js'

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

/** Whether `value` is a JSON-RPC endpoint {@link createProvider} can use: an http:// or https:// URL with a host. */
export function isRpcUrl (value: string): boolean {
  const url = URL.canParse(value) ? new URL(value) : undefined
  return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
}

/**
 * Asks the endpoint for its chain id with {@link rpcCall} (plain `fetch`, so a dead endpoint does not leave ethers
 * retrying in the background); throws {@link RpcUnreachableError} when it does not answer or answers without a chain
 * id, `AbortError` when `init.signal` aborts it.
 */
export async function probeChainId (rpcUrl: string, init: RpcCallInit = {}): Promise<number> {
  let result: unknown
  try {
    result = await rpcCall(rpcUrl, 'eth_chainId', [], init)
  } catch (err) {
    if ((err as Error).name !== 'JsonRpcError') throw err
    throw new RpcUnreachableError(`RPC endpoint ${rpcUrl} answered eth_chainId with an error: ${(err as JsonRpcError).rpcMessage}`, { cause: err })
  }
  if (typeof result !== 'string') {
    const answer = result === undefined ? 'no result' : JSON.stringify(result)
    throw new RpcUnreachableError(`RPC endpoint ${rpcUrl} answered eth_chainId with ${answer} instead of a chain id`)
  }
  return Number(BigInt(result))
}
