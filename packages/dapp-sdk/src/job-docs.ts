import { logger } from '@libp2p/logger'
import { closeJobDocs } from '@jobmesh/peer/crdt'
import type { DocStore } from '@jobmesh/peer/crdt'

const log = logger('jobmesh:dapp:docs')

/**
 * Which jobs' CRDT docs the client's operations are using. An operation that opens a job's docs (`progress`,
 * `results`, `describe`) holds the job while it runs; when the last hold of a job ends, every doc of it is closed:
 * its topics left, its state kept in the client's datastore. A client that follows job after job (a DApp service
 * running for days) keeps open only the docs of the jobs it is watching now.
 */
export interface JobDocHolds {
  /**
   * Holds `jobId`'s docs open until the returned release is called (once; it resolves when the docs are closed, or
   * at once while other holds remain). Waits for a close of them under way. A failed close is logged, not thrown.
   */
  hold(jobId: string): Promise<() => Promise<void>>
}

export function jobDocHolds (docs: Pick<DocStore, 'names' | 'close'>): JobDocHolds {
  const counts = new Map<string, number>()
  const closing = new Map<string, Promise<void>>()

  const closeJob = async (id: string): Promise<void> => {
    const done = closeJobDocs(docs, id).then(
      (names) => { log('closed %d docs of %s', names.length, id) },
      (err: Error) => { log.error('closing the docs of %s: %e', id, err) })
      .finally(() => { if (closing.get(id) === done) closing.delete(id) })
    closing.set(id, done)
    await done
  }

  return {
    async hold (jobId) {
      const id = jobId.toLowerCase()
      counts.set(id, (counts.get(id) ?? 0) + 1)
      // a doc being closed would be handed out and destroyed under the new holder
      await closing.get(id)
      let released = false
      return async () => {
        if (released) return
        released = true
        const left = (counts.get(id) ?? 1) - 1
        if (left > 0) {
          counts.set(id, left)
          return
        }
        counts.delete(id)
        await closeJob(id)
      }
    }
  }
}
