import { pollUntil, revertName, timeoutSignal, withTimeout } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { OWN_PENDING_POLL_MS, STOP_PAUSE_TIMEOUT_MS } from './constants.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

/**
 * Takes this node out of the verifier draw as its peer stops (`NodeRegistry.pause`; the next start resumes it,
 * `ensureRegistered`): a node drawn while it is down misses its seed and is slashed the bond. Then records its
 * incentive share (0 while paused). Waits at most {@link STOP_PAUSE_TIMEOUT_MS} for both. Resolves false when the node
 * may still be in the draw (the chain away, a pause that failed; the caller tells the operator), true when it is out
 * (paused now, paused already, not registered); the stop goes on either way.
 */
export async function leaveDraw (chain: Pick<ChainClient, 'pause' | 'pokeIncentive' | 'address' | 'contracts' | 'provider'>): Promise<boolean> {
  const signal = timeoutSignal(STOP_PAUSE_TIMEOUT_MS)
  try {
    await pauseAfterOwnPending(chain, signal)
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

/**
 * Pauses the node; when it reads as paused already while a transaction of this wallet is still in the pool (a resume
 * the pause duty sent just before the stop, after the registry paused the node), waits for the pool to be mined and
 * pauses again: that resume, mined after a stop that took the node for paused, would have left it in the draw.
 */
async function pauseAfterOwnPending (chain: Pick<ChainClient, 'pause' | 'address' | 'provider'>, signal: AbortSignal): Promise<void> {
  try {
    await chain.pause({ signal })
    return
  } catch (err) {
    if (revertName(err) !== 'AlreadyPaused' || !(await ownPending(chain, signal))) throw err
  }
  log('paused already, with a transaction of this wallet not mined yet: pausing after it')
  await pollUntil(async () => (await ownPending(chain, signal)) ? undefined : true,
    { pollMs: OWN_PENDING_POLL_MS, timeoutMs: STOP_PAUSE_TIMEOUT_MS, what: 'this wallet\'s transactions in the pool', signal })
  await chain.pause({ signal })
}

/** Whether this wallet has transactions in the pool (its pending nonce ahead of its mined one). */
async function ownPending (chain: Pick<ChainClient, 'address' | 'provider'>, signal: AbortSignal): Promise<boolean> {
  const me = await chain.address()
  const [pending, mined] = await Promise.all([
    withTimeout(chain.provider.getTransactionCount(me, 'pending'), { timeoutMs: STOP_PAUSE_TIMEOUT_MS, what: 'pending nonce', signal }),
    withTimeout(chain.provider.getTransactionCount(me, 'latest'), { timeoutMs: STOP_PAUSE_TIMEOUT_MS, what: 'mined nonce', signal })
  ])
  return pending > mined
}
