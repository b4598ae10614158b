import { revertName, timeoutSignal } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { STOP_PAUSE_TIMEOUT_MS } from './constants.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

/**
 * Takes this node out of the verifier draw as its peer stops (`NodeRegistry.pause`; the next start resumes it,
 * `ensureRegistered`): a node drawn while it is down misses its seed and is slashed the bond. Then records its
 * incentive share (0 while paused). Waits at most {@link STOP_PAUSE_TIMEOUT_MS} for both. Resolves false when the node
 * may still be in the draw (the chain away, a pause that failed; the caller tells the operator), true when it is out
 * (paused now, paused already, not registered); the stop goes on either way.
 */
export async function leaveDraw (chain: Pick<ChainClient, 'pause' | 'pokeIncentive' | 'address' | 'contracts'>): Promise<boolean> {
  const signal = timeoutSignal(STOP_PAUSE_TIMEOUT_MS)
  try {
    await chain.pause({ signal })
    log('paused in the registry until the next start')
  } catch (err) {
    // paused already (by the registry after a missed task) or no longer registered: out of the draw all the same
    const name = revertName(err)
    if (name === 'AlreadyPaused' || name === 'NotRegistered') {
      log('not in the draw: %s', name)
      return true
    }
    log('pausing in the registry failed: %e', err)
    return false
  }
  // a paused node's incentive share is 0, but the pool records shares lazily: recorded now, it stops earning while
  // down (the next start records it again), instead of keeping its old share until someone pokes it
  if (chain.contracts.incentivePool != null) {
    await chain.pokeIncentive(await chain.address(), { signal }).catch((err: Error) => { log('recording the incentive share failed: %e', err) })
  }
  return true
}
