import { findEvents } from './find-events.js'
import type { BlockRange } from './find-events.js'
import type { CallOptions } from '../../client/client-types.js'

/** The manifest CIDs submitted for a job with this result root (its `ResultsSubmitted` events), newest first. @throws the chain errors */
export async function submittedManifests (client: Parameters<typeof findEvents>[0], jobId: string, resultRoot: string,
  options: CallOptions & BlockRange = {}): Promise<string[]> {
  const events = await findEvents(client, { names: ['ResultsSubmitted'], topic1: jobId.toLowerCase(), fromBlock: options.fromBlock, toBlock: options.toBlock }, options)
  const root = resultRoot.toLowerCase()
  return events.reverse()
    .filter(e => String(e.args.resultRoot).toLowerCase() === root && String(e.args.manifestCid) !== '')
    .map(e => String(e.args.manifestCid))
}
