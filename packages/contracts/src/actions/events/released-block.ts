import { findEvents } from './find-events.js'
import type { BlockRange } from './find-events.js'
import type { CallOptions } from '../../client/client-types.js'

/** The block of the job's latest `JobReleased` event in the range, or undefined. @throws the chain errors */
export async function releasedBlock (client: Parameters<typeof findEvents>[0], jobId: string, options: CallOptions & BlockRange = {}): Promise<number | undefined> {
  const events = await findEvents(client, { names: ['JobReleased'], topic1: jobId.toLowerCase(), fromBlock: options.fromBlock, toBlock: options.toBlock }, options)
  return events.at(-1)?.blockNumber
}
