import { getAddress } from 'ethers'
import { findEvents } from './find-events.js'
import type { BlockRange } from './find-events.js'
import type { CallOptions } from '../../client/client-types.js'

/** The wallets slashed for a job's rejected rounds, in round order (one per `JobRejected` event): index r = round r. @throws the chain errors */
export async function rejectedCulprits (client: Parameters<typeof findEvents>[0], jobId: string, options: CallOptions & BlockRange = {}): Promise<string[]> {
  const events = await findEvents(client, { names: ['JobRejected'], topic1: jobId.toLowerCase(), fromBlock: options.fromBlock, toBlock: options.toBlock }, options)
  return events.map(e => getAddress(String(e.args.culprit)))
}
