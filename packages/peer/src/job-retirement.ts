import { logger } from '@libp2p/logger'
import { closeJobDocs } from './crdt/index.js'
import type { DocStore } from './crdt/index.js'
import type { Processor, RetiredAs } from './processor/index.js'
import type { Settlement } from './settlement/index.js'

const log = logger('jobmesh:peer')

export interface JobRetirementComponents {
  settlement: Pick<Settlement, 'addEventListener' | 'removeEventListener'>
  processor?: Pick<Processor, 'retire'>
  docs: Pick<DocStore, 'names' | 'close'>
}

/**
 * A job over on chain (the settlement's `ended`: released and this peer's payouts claimed, or refunded) is retired
 * here: the processor leaves it, and every doc of it (its rounds' job docs and MacroJob docs) is closed, its topic
 * left. Without it a peer followed every job it ever worked on for as long as it ran: their docs in memory, their
 * topics in every gossipsub heartbeat and in the subscriptions it sends each new connection. A closed doc stays in
 * the datastore and is still served from there, read-only (a DApp fetching results later). Returns the detach.
 */
export function retireEndedJobs (components: JobRetirementComponents): () => void {
  const onEnded = (evt: Event): void => {
    const { jobId } = (evt as CustomEvent<{ jobId: string }>).detail
    retireJob(components, jobId, 'settled')
  }
  components.settlement.addEventListener('ended', onEnded)
  return () => { components.settlement.removeEventListener('ended', onEnded) }
}

/** Retires one job here: the processor leaves it for good, and every doc of it is closed (in the background). */
export function retireJob (components: Pick<JobRetirementComponents, 'processor' | 'docs'>, jobId: string, why: RetiredAs): void {
  components.processor?.retire(jobId, why)
  closeJobDocs(components.docs, jobId).then(
    (names) => { log('job %s is over (%s): %d docs closed', jobId, why, names.length) },
    (err: Error) => { log.error('closing the docs of job %s: %e', jobId, err) })
}
