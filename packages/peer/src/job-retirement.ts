import { logger } from '@libp2p/logger'
import { jobIdOfDoc } from './crdt/index.js'
import type { DocStore } from './crdt/index.js'
import type { Processor } from './processor/index.js'
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
    components.processor?.retire(jobId)
    const names = components.docs.names().filter(name => jobIdOfDoc(name)?.split('/')[0] === jobId.toLowerCase())
    Promise.all(names.map(async name => { await components.docs.close(name) })).then(
      () => { log('job %s is over: %d docs closed', jobId, names.length) },
      (err: Error) => { log.error('closing the docs of job %s: %e', jobId, err) })
  }
  components.settlement.addEventListener('ended', onEnded)
  return () => { components.settlement.removeEventListener('ended', onEnded) }
}
