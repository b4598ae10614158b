import { announceJob } from '@jobmesh/peer/jobs'
import { AnnounceError } from '../errors.js'
import type { DocStore } from '@jobmesh/peer/crdt'
import type { JobmeshNode } from '@jobmesh/peer/node'
import type { JobSpec, PricingParams } from '@jobmesh/peer/protocol'
import type { AbortOptions } from '@libp2p/interface'

/** Announces jobs: a signed JobAnnouncement in `jobmesh/index` and on `/jobmesh/1/jobs`. */
export interface Announcer {
  /** `pricing`: the escrow's (`JobEscrow.pricing()`), for the task value the announcement carries. */
  announce(spec: JobSpec, jobId: string, specCid: string, pricing: PricingParams, options?: AbortOptions): Promise<void>
}

/** An announcer over the peer's `announceJob` (the processor's own, which owns the announcement format). */
export function createAnnouncer (node: JobmeshNode, docs: DocStore): Announcer {
  return {
    async announce (spec, jobId, specCid, pricing, options = {}) {
      try {
        await announceJob({ peerId: node.peerId, privateKey: node.privateKey, pubsub: node.pubsub, docs }, spec, jobId, specCid, pricing, options)
      } catch (err) {
        if (options.signal?.aborted === true) throw err
        throw new AnnounceError(`cannot announce ${jobId}: ${(err as Error).message}`, { cause: err })
      }
    }
  }
}
