import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** A node's QoS as the registry scores it (docs/contracts.md, QoS). */
export interface QosScores {
  /** Submission-speed score B: the mean task score of the window, in hundredths (0..2000; 1000 without history). */
  score: number
  /** Tasks (verifications and probes) in the 10-task window. */
  tasks: number
  /** Timed-out rounds in the window (0..20). */
  timeouts: number
  /** VRAM score R = VRAM / the largest VRAM registered (0..1). */
  vram: number
  /** The node's timeout setting O in force: it commits within this percent of a commit window (25..100). */
  timeoutPct: number
  /** Timeout score P = (100 - O) / (100 - 25) (0..1). */
  timeout: number
}

const SCALE = 1e6

/** `NodeRegistry.qosState`, `vramScore`, `timeoutOf` and `timeoutScore` of `address` (default: the signer). @throws the chain errors */
export async function qosScores (client: Pick<ChainContext, 'contracts' | 'read' | 'address'>, address?: string, options?: CallOptions): Promise<QosScores> {
  const a = address ?? await client.address()
  const r = client.contracts.nodeRegistry
  const [state, vram, timeoutPct, timeout] = await Promise.all([
    client.read(`NodeRegistry.qosState(${a})`, () => r.qosState(a), options),
    client.read(`NodeRegistry.vramScore(${a})`, () => r.vramScore(a), options),
    client.read(`NodeRegistry.timeoutOf(${a})`, () => r.timeoutOf(a), options),
    client.read(`NodeRegistry.timeoutScore(${a})`, () => r.timeoutScore(a), options)
  ])
  return {
    score: Number(state[0]),
    tasks: Number(state[1]),
    timeouts: Number(state[3]),
    vram: Number(vram) / SCALE,
    timeoutPct: Number(timeoutPct),
    timeout: Number(timeout) / SCALE
  }
}
