import { logger } from '@libp2p/logger'

const log = logger('jobmesh:sdk')

/** A caller's progress callback made safe to call: what it throws is logged, never thrown into the work it watches. */
export function progressReporter<P> (onProgress: ((progress: P) => void) | undefined): (progress: P) => void {
  return (progress) => {
    try {
      onProgress?.(progress)
    } catch (err) {
      log.error('onProgress threw: %e', err)
    }
  }
}
