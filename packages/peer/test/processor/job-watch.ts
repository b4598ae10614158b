import { waitFor } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

/** The MicroJobs `peers` have done, and how many of them completed the job, counted from now on. */
export interface JobWatch {
  done(): number
  completed(): number
  /** Waits until every watched peer completed the job (at most `timeoutMs`); the error says how far it got. */
  untilComplete(timeoutMs: number): Promise<void>
}

export function watchJob (peers: TestPeer[]): JobWatch {
  let done = 0
  let completed = 0
  for (const p of peers) {
    p.processor.addEventListener('microjob:done', () => { done++ })
    p.processor.addEventListener('job:complete', () => { completed++ })
  }
  return {
    done: () => done,
    completed: () => completed,
    async untilComplete (timeoutMs) {
      await waitFor(() => completed >= peers.length, { timeoutMs, what: `the job to complete on ${peers.length} peers` })
        .catch((err: Error) => { throw new Error(`${err.message}: ${done} MicroJobs done`, { cause: err }) })
    }
  }
}
