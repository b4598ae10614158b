import { logger } from '@libp2p/logger'
import { every } from './settlement/index.js'
import { createRetention, DEFAULT_RETENTION_SWEEP_MS, MIN_RETENTION_SWEEP_MS } from './storage/index.js'
import type { JobmeshNode } from './node/index.js'
import type { Retention } from './storage/index.js'

const log = logger('jobmesh:peer')

export interface ContentRetentionComponents {
  node: Pick<JobmeshNode, 'datastore' | 'helia'>
  /** The models this node keeps at hand (`ipfs://<cid>[/path]`): never let go of, whatever job also named them. */
  models(): readonly string[]
}

export interface ContentRetentionInit {
  /** How long a job's content stays after the job ended (ms); `Infinity` keeps everything. */
  retainMs?: number
  /**
   * How often ended jobs' content is looked at (ms). Default `retainMs`, within a minute and
   * {@link DEFAULT_RETENTION_SWEEP_MS} (an hour).
   */
  sweepMs?: number
}

export interface ContentRetention {
  retention: Retention
  stop(): Promise<void>
}

/**
 * The content this peer pinned for jobs (their inputs, its outputs, the outputs and manifests it holds as a finalizer
 * or a replica) is let go of `retainMs` after the job ended, unless a job still running or within its own retention
 * holds it too (docs/settlement.md, Retention). Looks now, then every `sweepMs`, in the background.
 */
export function startContentRetention (components: ContentRetentionComponents, init: ContentRetentionInit = {}): ContentRetention {
  const { node } = components
  const kept = (cid: string): boolean => components.models().some(m => m === `ipfs://${cid}` || m.startsWith(`ipfs://${cid}/`))
  const retention = createRetention({ datastore: node.datastore, pins: node.helia.pins, gc: async o => { await node.helia.gc(o) } },
    { retainMs: init.retainMs, kept })
  const controller = new AbortController()
  const sweep = async (signal: AbortSignal): Promise<void> => { await retention.sweep(Date.now(), { signal }) }
  const onError = (err: Error): void => { if (!controller.signal.aborted) log.error('letting go of ended jobs\' content: %e', err) }
  const sweepMs = init.sweepMs ?? Math.min(DEFAULT_RETENTION_SWEEP_MS, Math.max(MIN_RETENTION_SWEEP_MS, retention.totals().retainMs))
  const loop = sweep(controller.signal).catch(onError)
    .then(async () => { await every(sweepMs, controller.signal, sweep, onError) })
  return {
    retention,
    async stop () {
      controller.abort()
      await loop
      retention.stop()
    }
  }
}
