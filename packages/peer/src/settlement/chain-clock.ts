import { logger } from '@libp2p/logger'
import { every } from './every.js'
import { DEFAULT_CHAIN_CLOCK_REFRESH_MS } from './constants.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement')

export interface ChainClockComponents {
  chain: Pick<ChainClient, 'chainTime'>
}

export interface ChainClockInit {
  /** How often the chain's time is read again (ms). Default {@link DEFAULT_CHAIN_CLOCK_REFRESH_MS}. */
  refreshMs?: number
}

/**
 * The chain's clock, as this machine can tell it: the escrow compares a job's deadline with the latest block's time,
 * not with this machine's, and the two differ (a machine's clock set wrong, a chain whose time was moved on). Read
 * from the head block (behind by at most a block interval) and kept as an offset to `Date.now`.
 */
export interface ChainClock {
  /** The chain's time now (unix ms): this machine's clock until the first read. */
  now(): number
  /** Reads the head block's time now. @throws the chain errors */
  refresh(options?: { signal?: AbortSignal }): Promise<void>
  /** Reads it every `refreshMs` from now on (the first read is `refresh`'s, before). */
  start(): void
  stop(): void
}

export function chainClock (components: ChainClockComponents, init: ChainClockInit = {}): ChainClock {
  const refreshMs = init.refreshMs ?? DEFAULT_CHAIN_CLOCK_REFRESH_MS
  const controller = new AbortController()
  let offsetMs = 0

  const refresh = async (options: { signal?: AbortSignal } = {}): Promise<void> => {
    const asked = Date.now()
    const seconds = await components.chain.chainTime(options)
    offsetMs = seconds * 1000 - asked
    if (Math.abs(offsetMs) > 60_000) log('the chain\'s clock is %d s off this machine\'s: deadlines are read against the chain\'s', Math.round(offsetMs / 1000))
  }

  return {
    now: () => Date.now() + offsetMs,
    refresh,
    start () { void every(refreshMs, controller.signal, async signal => { await refresh({ signal }) }, err => { log('reading the chain\'s time failed: %e', err) }) },
    stop () { controller.abort() }
  }
}
