import { getAddress } from 'ethers'
import { findEvents } from './find-events.js'
import type { BlockRange } from './find-events.js'
import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** A job's `JobCreated` event: its spec CID (content-addressed, so authentic), creator and block. */
export interface JobCreatedEvent {
  jobId: string
  creator: string
  specCid: string
  blockNumber: number
}

function toCreated (args: Record<string, unknown>, blockNumber: number): JobCreatedEvent {
  return { jobId: String(args.jobId).toLowerCase(), creator: getAddress(String(args.creator)), specCid: String(args.specCid), blockNumber }
}

/** The `JobCreated` event of a job, or undefined when the escrow never created it. @throws the chain errors */
export async function jobCreated (client: Parameters<typeof findEvents>[0], jobId: string, options: CallOptions & BlockRange = {}): Promise<JobCreatedEvent | undefined> {
  const [first] = await findEvents(client, { names: ['JobCreated'], topic1: jobId.toLowerCase(), fromBlock: options.fromBlock, toBlock: options.toBlock }, options)
  return first === undefined ? undefined : toCreated(first.args, first.blockNumber)
}

/** The `JobCreated` events of every job `creator` made, oldest first. @throws the chain errors */
export async function jobsCreatedBy (client: Pick<ChainContext, 'provider' | 'deployment' | 'read' | 'blockNumber' | 'logBlockRange'>, creator: string,
  options: CallOptions & BlockRange = {}): Promise<JobCreatedEvent[]> {
  const events = await findEvents(client, { names: ['JobCreated'], topic2: creator, fromBlock: options.fromBlock, toBlock: options.toBlock }, options)
  return events.map(e => toCreated(e.args, e.blockNumber))
}
