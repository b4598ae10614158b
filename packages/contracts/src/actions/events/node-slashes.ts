import { findEvents } from './find-events.js'
import type { BlockRange } from './find-events.js'
import type { CallOptions } from '../../client/client-types.js'

/** Why the escrow slashed a node, from the escrow event of the same transaction that names it. */
export type SlashReason = 'seed-missed' | 'verifier-penalised' | 'results-rejected' | 'late-draw' | 'late-entropy'

/** One `NodeSlashed` event of a node, with the job and reason the escrow gave for it when one names the node. */
export interface NodeSlash {
  /** Wei taken from the stake. */
  amount: bigint
  /** The stake left after it (wei). */
  stakeLeft: bigint
  blockNumber: number
  transactionHash: string
  /**
   * `SeedMissed` (a drawn verifier that never revealed its seed), `VerifierPenalised`, `JobRejected` (the culprit);
   * a job's submitter that did not draw its verifiers in time: `DrawBountyPaid` (another node drew them, paid out of
   * its stake) or `EntropyReanchored` (its entropy block was re-anchored).
   */
  reason?: SlashReason
  jobId?: string
}

const REASONS: Record<string, SlashReason> = {
  SeedMissed: 'seed-missed',
  VerifierPenalised: 'verifier-penalised',
  JobRejected: 'results-rejected'
}

/** The escrow events of a submitter's slash: they name the job, not the node, so the slash's transaction ties them. */
const SUBMITTER_REASONS: Record<string, SlashReason> = {
  DrawBountyPaid: 'late-draw',
  EntropyReanchored: 'late-entropy'
}

/**
 * The registry's slashes of `node` in `[fromBlock, toBlock]` (default: deployment block to head), oldest first. The
 * escrow events naming the node as their second indexed argument (verifier, culprit) give the job and the reason; a
 * slash of a job's submitter for a late draw gets them from the draw's event in the same transaction.
 *
 * @throws the chain errors
 */
export async function nodeSlashes (client: Parameters<typeof findEvents>[0], node: string, options: CallOptions & BlockRange = {}): Promise<NodeSlash[]> {
  const range = { fromBlock: options.fromBlock, toBlock: options.toBlock ?? await client.blockNumber(options) }
  const [slashes, causes] = await Promise.all([
    findEvents(client, { names: ['NodeSlashed'], topic1: node, ...range }, options),
    findEvents(client, { names: Object.keys(REASONS), topic2: node, ...range }, options)
  ])
  const late = slashes.length === 0 || slashes.every(s => causes.some(c => c.transactionHash === s.transactionHash))
    ? []
    : await findEvents(client, { names: Object.keys(SUBMITTER_REASONS), ...range }, options)
  return slashes.map(s => {
    const cause = causes.find(c => c.transactionHash === s.transactionHash) ?? late.find(c => c.transactionHash === s.transactionHash)
    return {
      amount: BigInt(s.args.amount as bigint),
      stakeLeft: BigInt(s.args.stakeLeft as bigint),
      blockNumber: s.blockNumber,
      transactionHash: s.transactionHash,
      ...(cause === undefined ? {} : { reason: REASONS[cause.name] ?? SUBMITTER_REASONS[cause.name], jobId: String(cause.args.jobId).toLowerCase() })
    }
  })
}
