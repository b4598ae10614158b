import { logger } from '@libp2p/logger'
import { macroTopic } from '../coord/index.js'
import { roundKey } from '../jobs/index.js'
import type { JobContext } from './job-context.js'
import type { KnownJob } from '../jobs/index.js'
import type { RoomPubSub } from '../coord/index.js'

const log = logger('jobmesh:processor')

/** What moving a job from one round to another touches of the processor. */
export interface JobRoundsHost {
  self: string
  jobs: Map<string, KnownJob>
  contexts: Map<string, JobContext>
  completed: Set<string>
  failed: Set<string>
  /** Topic validators to remove, by topic. */
  unguards: Map<string, () => void>
  pubsub: Pick<RoomPubSub, 'unsubscribe'>
  /** The job's round on chain when known (`ProcessorInit.roundOf`). */
  roundOf?(jobId: string, held: number): number | undefined
}

/** Another round of the job is to be worked on: leaves the earlier round's rooms and doc context (jobs/rounds.ts). */
export function retireRound (host: JobRoundsHost, jobId: string): void {
  host.completed.delete(jobId)
  host.failed.delete(jobId)
  leaveJob(host, jobId)
}

/**
 * Leaves what this peer holds of a job's round: its rooms, its `/macro` topic and its context (results finished and
 * not written yet are written). Its docs stay open: the caller closes them when the job is over (peer.ts).
 */
export function leaveJob (host: Pick<JobRoundsHost, 'contexts' | 'unguards' | 'pubsub'>, jobId: string): void {
  const ctx = host.contexts.get(jobId)
  if (ctx == null) return
  host.contexts.delete(jobId)
  ctx.finalized = true
  ctx.left = true
  ctx.batch.flush()
  for (const room of ctx.rooms.values()) room.close()
  ctx.progress.stop()
  ctx.failures.stop()
  clearTimeout(ctx.summaryCheck)
  ctx.wake?.()
  const topic = macroTopic(ctx.job.key)
  host.pubsub.unsubscribe(topic)
  host.unguards.get(topic)?.()
  host.unguards.delete(topic)
  log('job %s: round %d left', jobId, ctx.job.round)
}

/** Moves every known job whose round on chain is known and is not the one held to that round. */
export function followRounds (host: JobRoundsHost): void {
  if (host.roundOf == null) return
  for (const job of [...host.jobs.values()]) {
    const round = host.roundOf(job.jobId, job.round)
    if (round === undefined || round === job.round) continue
    log('%s job %s: round %d on chain, not %d', host.self.slice(-6), job.jobId, round, job.round)
    host.jobs.set(job.jobId, { ...job, round, key: roundKey(job.jobId, round) })
    retireRound(host, job.jobId)
  }
}
