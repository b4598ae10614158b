import { POOL_RPC_TIMEOUT_MS } from '../constants.js'
import { AnvilRpcError } from '../errors.js'

/** One JSON-RPC call to an anvil (its test methods: evm_snapshot, evm_revert, evm_setTime...), with a timeout. */
export async function anvilRpc (rpcUrl: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(POOL_RPC_TIMEOUT_MS)
  })
  const body = await res.json() as { result?: unknown, error?: { message?: string } }
  if (body.error != null) throw new AnvilRpcError(method, body.error.message ?? JSON.stringify(body.error))
  return body.result
}
