import { timeoutSignal } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { STOP_PAUSE_TIMEOUT_MS } from './constants.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

/**
 * Takes this node out of the verifier draw as its peer stops (`NodeRegistry.pause`; the next start resumes it,
 * `ensureRegistered`): a node drawn while it is down misses its seed and is slashed the bond. Waits at most
 * {@link STOP_PAUSE_TIMEOUT_MS}; a failure (already paused, chain away) is logged, the stop goes on.
 */
export async function leaveDraw (chain: Pick<ChainClient, 'pause'>): Promise<boolean> {
  try {
    await chain.pause({ signal: timeoutSignal(STOP_PAUSE_TIMEOUT_MS) })
    log('paused in the registry until the next start')
    return true
  } catch (err) {
    log('pausing in the registry failed: %e', err)
    return false
  }
}
