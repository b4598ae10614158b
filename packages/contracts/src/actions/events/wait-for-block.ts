import { DEFAULT_WAIT_TIMEOUT_MS } from '../../constants.js'
import { pollUntil } from '../../client/wait.js'
import type { WaitOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** Polls until the chain reaches block `n`; returns the head. @throws ChainTimeoutError, AbortError */
export async function waitForBlock (client: Pick<ChainContext, 'blockNumber' | 'pollMs'>, n: number, options: WaitOptions = {}): Promise<number> {
  return pollUntil(async () => {
    const head = await client.blockNumber(options)
    return head >= n ? head : undefined
  }, { pollMs: options.pollMs ?? client.pollMs, timeoutMs: options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS, what: `block ${n}`, signal: options.signal })
}
