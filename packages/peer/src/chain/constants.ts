/** Defaults of the chain client; applied as `init.x ?? DEFAULT_X`. */

/** How long one RPC call (read, estimate, send) may take (ms). */
export const DEFAULT_RPC_TIMEOUT_MS = 15_000

/** How long to wait for a sent transaction to be mined (ms). Amoy mines a block about every 2 s. */
export const DEFAULT_TX_TIMEOUT_MS = 120_000

/** Interval of every poll: receipts, block numbers, event logs, job state (ms). */
export const DEFAULT_POLL_MS = 1_000

/** Largest block range of one `eth_getLogs` request (public RPCs cap it). */
export const DEFAULT_LOG_BLOCK_RANGE = 1_000

/** Gas limit = estimate * this / 10 000 (estimates can be low when state moves between estimate and mining). */
export const DEFAULT_GAS_MARGIN_BPS = 13_000

/** How long `waitForBlock` and the other chain waits wait by default (ms). */
export const DEFAULT_WAIT_TIMEOUT_MS = 300_000

/** Status names of `JobEscrow.Status`, by number. */
export const JOB_STATUS_NAMES = ['None', 'Open', 'Submitted', 'Released', 'Refunded'] as const

/** Sends of one transaction that ran out of gas before the error is thrown (each with twice the last gas limit). */
export const OUT_OF_GAS_ATTEMPTS = 2

/** A reverted transaction that used at least this share (%) of its gas limit and replays cleanly ran out of gas. */
export const OUT_OF_GAS_USED_PERCENT = 95n
