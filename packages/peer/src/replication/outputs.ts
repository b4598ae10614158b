import { logger } from '@libp2p/logger'
import { replicate } from './client.js'
import { DEFAULT_OUTPUT_REPLICAS } from './constants.js'
import { NotEnoughReplicasError, ReplicationBudgetError } from './errors.js'
import type { ReplicationClientComponents } from './client.js'

const log = logger('jobmesh:replication')

export interface ReplicateOutputsOptions {
  /** Peers besides its producer that must hold each output, default 3. */
  replicas?: number
  /**
   * Whether a peer's confirmation counts (`ReplicateOptions.counts`): with a chain, only registered nodes' that prove
   * they hold the manifest and outputs (`provenHolders`).
   */
  counts?(peer: string, options: { signal: AbortSignal }): Promise<boolean>
  timeoutMs?: number
  signal?: AbortSignal
}

export interface ReplicateOutputsResult {
  /** Peers that confirmed they hold the manifest and every output. */
  held: string[]
  /** The fewest holders any output has, its producer not counted (this peer counted). */
  minReplicas: number
}

/** Holders of an output besides its producer, this peer included. */
function holders (self: string, held: readonly string[], producer: string): number {
  return [self, ...held].filter(p => p !== producer).length
}

/**
 * The finalizer's step before `submitResults` (docs/settlement.md, Availability): asks connected peers to hold the
 * manifest and every output until each output is held by `replicas` peers besides its producer (this peer counts:
 * it holds them all), or every peer answered, or the time is up. A network too small for `replicas` gets as many
 * as it has (logged); the job is submitted anyway, this peer holding everything. But when a connected peer that
 * speaks the protocol could not hold them (it could not fetch the manifest or an output from this peer, or did not
 * answer in time) the network is not too small, something is wrong: `NotEnoughReplicasError`, and the finalizer
 * retries instead of submitting a root only it can back. A peer that declines for its byte budget
 * (`ReplicationBudgetError`) is not such a failure: it counts as a peer that does not hold them.
 *
 * @throws NotEnoughReplicasError, AbortError
 */
export async function replicateOutputs (components: ReplicationClientComponents & { self: string }, jobId: string,
  manifestCid: string, producers: readonly string[], options: ReplicateOptions = {}): Promise<ReplicateOutputsResult> {
  const want = options.replicas ?? DEFAULT_OUTPUT_REPLICAS
  const distinct = [...new Set(producers)]
  const enough = (held: readonly string[]): boolean => distinct.every(p => holders(components.self, held, p) >= want)
  const failed: string[] = []
  const held = await replicate(components, { kind: 'outputs', jobId, manifestCid }, {
    enough,
    exclude: new Set([components.self]),
    counts: options.counts,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    onFailed: (peer, reason, refusal) => {
      // a peer whose byte budget this job exceeds declines by policy: like a small network, not a fault
      if (refusal === ReplicationBudgetError.name) log('%s declined %s: %s', peer, jobId, reason)
      else failed.push(`${peer} (${reason})`)
    }
  })
  const minReplicas = distinct.length === 0 ? 0 : Math.min(...distinct.map(p => holders(components.self, held, p)))
  if (minReplicas < want && failed.length > 0) {
    throw new NotEnoughReplicasError(`${jobId}: outputs held by ${minReplicas} peers besides their producer (wanted ${want}); ` +
      `${failed.length} connected peers could not hold them: ${failed.join('; ')}`, held)
  }
  if (minReplicas < want) log('%s: outputs held by %d peers besides their producer (wanted %d): the network is smaller', jobId, minReplicas, want)
  else log('%s: outputs held by >= %d peers besides their producer', jobId, minReplicas)
  return { held, minReplicas }
}

type ReplicateOptions = ReplicateOutputsOptions
