import { nodesNeeded } from '@jobmesh/peer/protocol'
import { JobCannotFinishError } from '../errors.js'
import type { ChainContext } from '../context.js'

/** Too few active nodes for a job's k verifiers and its submitter, read on chain. */
export interface NodeShortfall {
  /** Active nodes: registered, not paused, exiting nor kicked out. */
  active: number
  /** What the job needs: k + 1 ({@link nodesNeeded}). */
  needed: number
  /** The shortfall in words, naming the job as `name` (`this job`, `job 0x...`). */
  why: string
}

/** The shortfall of `active` nodes for a job with `k` verifiers, or undefined when they are enough. */
export function nodeShortfall (active: number, k: number, name: string): NodeShortfall | undefined {
  const needed = nodesNeeded(k)
  if (active >= needed) return undefined
  const nodes = `${active} ${active === 1 ? 'node is' : 'nodes are'} active (registered, not paused, exiting nor kicked out)`
  return { active, needed, why: `${nodes}, ${name} with ${k} verifiers needs ${needed} (its submitter cannot verify it)` }
}

/**
 * Refuses (JobCannotFinishError) a job with `k` verifiers before anything is uploaded or paid when fewer than k + 1
 * nodes are active: funded, its fee would wait for its deadline, since no work on it could be verified.
 */
export async function requireActiveNodes (ctx: ChainContext, k: number, options: { signal?: AbortSignal } = {}): Promise<void> {
  const short = nodeShortfall(await ctx.chain.client.activeNodes({ signal: options.signal }), k, 'this job')
  if (short === undefined) return
  throw new JobCannotFinishError(`${short.why}. Nothing was uploaded or paid`, short.active, short.needed)
}
