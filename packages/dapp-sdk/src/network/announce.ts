import { createProcessor } from '@jobmesh/peer/processor'
import { AnnounceError } from '../errors.js'
import type { DocStore } from '@jobmesh/peer/crdt'
import type { JobmeshNode } from '@jobmesh/peer/node'
import type { MicroJobExecutor, Processor } from '@jobmesh/peer/processor'
import type { JobSpec, PricingParams } from '@jobmesh/peer/protocol'

/** Announces jobs: a signed JobAnnouncement in `jobmesh/index` and on `/jobmesh/1/jobs`. */
export interface Announcer {
  /** `pricing`: the escrow's (`JobEscrow.pricing()`), for the task value the announcement carries. */
  announce(spec: JobSpec, jobId: string, specCid: string, pricing: PricingParams): Promise<void>
}

const NO_EXECUTOR: MicroJobExecutor = {
  async run () {
    throw new Error('the DApp client does not process MicroJobs')
  },
  async execute () {
    throw new Error('the DApp client does not process MicroJobs')
  }
}

/**
 * An announcer built on the peer's processor, which owns the announcement format: the processor is never
 * started (it joins no rooms and runs nothing), only its `announceJob` is used.
 */
export function createAnnouncer (node: JobmeshNode, docs: DocStore): Announcer {
  // one deployment, one pricing: the processor is made at the first announcement, with the escrow's pricing
  let processor: Processor | undefined
  return {
    async announce (spec, jobId, specCid, pricing) {
      try {
        processor ??= createProcessor({ ...node, docs }, { executor: NO_EXECUTOR, pricing })
        await processor.announceJob(spec, jobId, specCid)
      } catch (err) {
        throw new AnnounceError(`cannot announce ${jobId}: ${(err as Error).message}`, { cause: err })
      }
    }
  }
}
