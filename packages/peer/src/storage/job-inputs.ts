import { AbortError } from '@jobmesh/contracts'
import { raceSignal } from 'race-signal'
import { pinJobContent } from './job-content.js'
import type { ContentStore } from './content-store.js'
import type { JobContent, PinJobContentOptions } from './job-content.js'

export interface JobInputsComponents {
  store: Pick<ContentStore, 'pin' | 'addRaw'>
}

/**
 * A peer's holding of jobs' inputs ({@link pinJobContent}), one pin of a job's inputs at a time: the processor, before
 * it works on a job, and the replication server, when a DApp asks this peer to hold the inputs of a job it submitted,
 * both hold them, most often in the same second. A second `hold` of a job whose pin is under way waits for that pin
 * instead of walking and pinning the same DAGs beside it (two such pins on a devnet peer sometimes ended ~0.9 s apart,
 * docs/coordination.md, Thirty-first round).
 */
export interface JobInputs {
  /**
   * Pins the job's inputs, or waits for the pin of them under way here; returns the URIs pinned. A caller whose
   * `signal` aborts stops waiting (the pin goes on for the others); when the pin under way ends, or is ending, because
   * its own caller's signal aborted, the next caller pins them under its own bounds.
   *
   * @throws what {@link pinJobContent} throws; AbortError (naming the job) when `signal` aborts while it waits
   */
  hold(job: JobContent, options?: PinJobContentOptions): Promise<string[]>
}

interface Pin { done: Promise<string[]>, signal?: AbortSignal }

/** Whether a pin was stopped by its own caller's signal (read afresh: it may abort while others wait on it). */
function stoppedByItsCaller (pin: Pin): boolean {
  return pin.signal?.aborted === true
}

export function jobInputs (components: JobInputsComponents): JobInputs {
  const pins = new Map<string, Pin>()

  const start = (key: string, job: JobContent, options: PinJobContentOptions): Pin => {
    const pin: Pin = { done: pinJobContent(components.store, job, options), signal: options.signal }
    pins.set(key, pin)
    const forget = (): void => { if (pins.get(key) === pin) pins.delete(key) }
    pin.done.then(forget, forget)
    return pin
  }

  return {
    async hold (job, options = {}) {
      const key = `${job.jobId.toLowerCase()}/${job.specCid}`
      for (;;) {
        const running = pins.get(key)
        if (running == null || stoppedByItsCaller(running)) return await start(key, job, options).done
        try {
          return await raceSignal(running.done, options.signal, {
            translateError: () => new AbortError(`holding the inputs of job ${job.jobId}: stopped while another holding of them ran`)
          })
        } catch (err) {
          // the pin under way ended for its caller's own signal, not for the content: pin again for this caller
          if (options.signal?.aborted === true || !stoppedByItsCaller(running)) throw err
        }
      }
    }
  }
}
