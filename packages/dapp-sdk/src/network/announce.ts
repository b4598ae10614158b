import { createProcessor } from '@jobmesh/peer'
import { AnnounceError } from '../errors.js'
import type { DocStore, JobSpec, JobmeshNode, MicroJobExecutor } from '@jobmesh/peer'

/** Announces jobs: a signed JobAnnouncement in `jobmesh/index` and on `/jobmesh/1/jobs`. */
export interface Announcer {
  announce(spec: JobSpec, jobId: string, specCid: string): Promise<void>
}

const NO_EXECUTOR: MicroJobExecutor = {
  async run () {
    throw new Error('the DApp client does not process MicroJobs')
  }
}

/**
 * An announcer built on the peer's processor, which owns the announcement format: the processor is never
 * started (it joins no rooms and runs nothing), only its `announceJob` is used.
 */
export function createAnnouncer (node: JobmeshNode, docs: DocStore): Announcer {
  const processor = createProcessor({ ...node, docs }, { executor: NO_EXECUTOR })
  return {
    async announce (spec, jobId, specCid) {
      try {
        await processor.announceJob(spec, jobId, specCid)
      } catch (err) {
        throw new AnnounceError(`cannot announce ${jobId}: ${(err as Error).message}`, { cause: err })
      }
    }
  }
}
