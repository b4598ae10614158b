import { logger } from '@libp2p/logger'
import { rateLimiter } from '../crdt/index.js'
import { readAnnouncement } from '../jobs/index.js'
import { NEW_JOBS_PER_SENDER } from './constants.js'
import type { CoordMetrics, RecordVerifier } from '../coord/index.js'
import type { KnownJob } from '../jobs/index.js'
import type { PricingParams } from '../protocol/index.js'

const log = logger('jobmesh:processor')

/** What learning jobs from announcements uses of the processor. */
export interface JobDiscoveryHost {
  self: string
  /** The jobs this peer knows, by id (learning adds to it). */
  jobs: Map<string, KnownJob>
  verifier: RecordVerifier
  pricing: PricingParams
  metrics: Pick<CoordMetrics, 'droppedForged' | 'droppedMalformed' | 'rateLimited'>
  clock(): number
  /** The job's round on chain when known (`ProcessorInit.roundOf`). */
  roundOf?(jobId: string, announced: number): number | undefined
  /** A job new to this peer, or a later round of one it knew (`previous`). */
  onLearnt(job: KnownJob, previous?: KnownJob): void
}

/** Where an announcement came from: a `/jobs` sender (budgeted), or the index key it was stored under. */
export interface AnnouncementSource {
  from?: string
  key?: string
}

export interface JobDiscovery {
  /** Reads an announcement; returns the job it names when this peer knows it (now). */
  learn(record: Uint8Array, source?: AnnouncementSource): KnownJob | undefined
}

/**
 * Learning jobs from announcements (`/jobs` and `jobmesh/index`): forged and malformed ones are counted and dropped; a
 * record of another job under an index key is not that key's announcement; on `/jobs` each sender may announce only
 * so many jobs new to this peer ({@link NEW_JOBS_PER_SENDER}): each is read on chain, and announcements are free. (No
 * cap for all senders together: sender keys are free too, and such a cap would let a flood of fresh keys keep every
 * new job out.)
 */
export function jobDiscovery (host: JobDiscoveryHost): JobDiscovery {
  const perSender = rateLimiter(NEW_JOBS_PER_SENDER)
  const withinBudget = (from: string): boolean => perSender.take(from, host.clock()) === 'ok'
  return {
    learn (record, source = {}) {
      const verdict = readAnnouncement(record, host.verifier, (jobId) => host.jobs.get(jobId), host.pricing, host.roundOf)
      switch (verdict.kind) {
        case 'forged':
          host.metrics.droppedForged++
          return undefined
        case 'malformed':
          log('bad announcement: %e', verdict.error)
          host.metrics.droppedMalformed++
          return undefined
        case 'known':
          return verdict.job
        case 'new':
          if (source.key != null && source.key !== verdict.job.jobId) return undefined
          if (source.from != null && !withinBudget(source.from)) {
            host.metrics.rateLimited++
            return undefined
          }
          log('%s learnt job %s round %d', host.self.slice(-6), verdict.job.jobId, verdict.job.round)
          host.jobs.set(verdict.job.jobId, verdict.job)
          host.onLearnt(verdict.job, verdict.previous)
          return verdict.job
      }
    }
  }
}
