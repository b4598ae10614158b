import { rpcCall } from '@jobmesh/contracts'
import { POOL_RPC_TIMEOUT_MS } from '../constants.js'
import { AnvilRpcError } from '../errors.js'
import type { JsonRpcError } from '@jobmesh/contracts'

/**
 * One JSON-RPC call to an anvil (its test methods: evm_snapshot, evm_revert, evm_setTime...), with a timeout: the
 * anvil's refusal becomes {@link AnvilRpcError}; an anvil that does not answer, `RpcUnreachableError`.
 */
export async function anvilRpc (rpcUrl: string, method: string, params: unknown[]): Promise<unknown> {
  try {
    return await rpcCall(rpcUrl, method, params, { timeout: POOL_RPC_TIMEOUT_MS })
  } catch (err) {
    if ((err as Error).name !== 'JsonRpcError') throw err
    throw new AnvilRpcError(method, (err as JsonRpcError).rpcMessage, { cause: err })
  }
}
