import { delay, revertName } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { COMMIT_TIMEOUT_RETRY_MS } from './constants.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

/**
 * Sets the node's commit timeout (`--commit-timeout`) unless it is already in force. The registry refuses a change
 * while the node is busy (a verification it was drawn for, or an open probe: `NodeIsBusy`), so that a verifier cannot
 * relax its promise for one late commit; a node that starts busy keeps its old setting until that task is over and
 * sets it then, in the background (every {@link COMMIT_TIMEOUT_RETRY_MS}, until `signal` aborts), instead of failing
 * its start.
 *
 * @throws the chain's errors other than `NodeIsBusy` on the first attempt
 */
export async function applyCommitTimeout (client: Pick<ChainClient, 'qosScores' | 'setCommitTimeout'>, address: string, pct: number,
  signal: AbortSignal): Promise<void> {
  const attempt = async (): Promise<boolean> => {
    if ((await client.qosScores(address, { signal })).timeoutPct === pct) return true
    try {
      await client.setCommitTimeout(pct, { signal })
      return true
    } catch (err) {
      if (revertName(err) !== 'NodeIsBusy') throw err
      return false
    }
  }
  if (await attempt()) return
  log('node %s is busy with a task: its commit timeout of %d%% is set once the task is over', address, pct)
  void (async () => {
    while (!signal.aborted) {
      try {
        await delay(COMMIT_TIMEOUT_RETRY_MS, signal)
        if (await attempt()) {
          log('set the commit timeout of %s to %d%%', address, pct)
          return
        }
      } catch (err) {
        if (signal.aborted) return
        log.error('setting the commit timeout of %s failed: %e', address, err)
      }
    }
  })()
}
