import { ChainRequestError } from '../errors.js'
import type { TxResult } from './tx-sender.js'

/**
 * The arguments of the `name` event a mined transaction emitted (what the action reports: an id, an amount, a time).
 * @throws ChainRequestError when it emitted none (a contract other than the deployment names, or an RPC that dropped logs)
 */
export function emitted (tx: TxResult, name: string, call: string): Record<string, unknown> {
  const event = tx.events.find(e => e.name === name)
  if (event === undefined) throw new ChainRequestError(`${call} (tx ${tx.hash}) emitted no ${name} event`)
  return event.args
}
