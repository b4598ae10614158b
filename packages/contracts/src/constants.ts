/** Defaults of `@jobmesh/contracts`; every one is applied as `init.x ?? DEFAULT_X`. */

/** Chain id of a local anvil chain (anvil's own default). */
export const ANVIL_CHAIN_ID = 31337

/** Chain id of Polygon Amoy, the public testnet target. */
export const AMOY_CHAIN_ID = 80002

/** RPC URL used by `scripts/deploy.mjs` when `JOBMESH_RPC_URL` is not set. */
export const DEFAULT_RPC_URL = 'http://127.0.0.1:8545'

/** Number of funded dev accounts anvil creates. */
export const DEFAULT_ANVIL_ACCOUNTS = 10

/** Balance of each anvil dev account, in ether. */
export const DEFAULT_ANVIL_BALANCE = 10_000

/** Past block states anvil keeps in memory (`--prune-history`); none are written to disk. */
export const DEFAULT_ANVIL_HISTORY_STATES = 256

/** How long `startAnvil` waits for anvil to print its listening address, in ms. */
export const DEFAULT_ANVIL_START_TIMEOUT = 15_000

/** How long `Anvil.stop()` waits for a SIGTERM before it sends SIGKILL, in ms. */
export const DEFAULT_ANVIL_STOP_TIMEOUT = 5_000

/** anvil's default dev mnemonic (its accounts are printed at start and derived from this). */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk'

/** Confirmations `deploy` waits for on each deployment transaction. */
export const DEFAULT_CONFIRMATIONS = 1

/**
 * Default `NodeRegistry` parameters (constructor `Params`): 0.01 ether minimum stake, stake score saturating at
 * 1 ether, 1 day exit cooldown, at most 64 picks per verifier for the model multiplier's coin, a probe task for a
 * node without a scored task for an hour.
 */
export const DEFAULT_REGISTRY_PARAMS = {
  minStake: 10_000_000_000_000_000n,
  stakeCap: 1_000_000_000_000_000_000n,
  exitCooldown: 86_400,
  maxDrawAttempts: 64,
  probeInterval: 3_600
} as const

/**
 * Default `JobEscrow` parameters (constructor `Params`, docs/contracts.md): k <= 7; at most 64 sampled leaves per
 * round; commit and reveal windows of 20 blocks each, the commit window plus the sample's re-run time at 2 s per
 * block; task value from a 30 s overhead and 1 s per MicroJob (network constants, in ms); verification queue size = max(16, 1.0 * N); deadlines within 30 days; 7 days to claim;
 * bond and culprit slash 2 x the fee; a missed draw window costs a quarter of the bond; each verifier share >= 1 000
 * wei; treasury = the deployer (zero address).
 */
export const DEFAULT_ESCROW_PARAMS = {
  maxVerifiers: 7,
  maxSampleLeaves: 64,
  commitWindow: 20,
  revealWindow: 20,
  secondsPerBlock: 2,
  overheadMs: 30_000,
  msPerMicroJob: 1_000,
  alphaBps: 10_000,
  queueMin: 16,
  maxDeadline: 2_592_000,
  claimWindow: 604_800,
  bondBps: 20_000,
  drawPenaltyBps: 2_500,
  minFee: 1_000n,
  treasury: '0x0000000000000000000000000000000000000000'
} as const

/**
 * Default `IncentivePool` parameters (docs/contracts.md, Incentives): a node's share = 25 % VRAM score R + 25 % timeout
 * score P + 50 % submission-speed score B (basis points, summing to 10 000); each funding streams out over 7 days.
 */
export const DEFAULT_INCENTIVE_PARAMS = {
  weightR: 2_500,
  weightP: 2_500,
  weightB: 5_000,
  period: 604_800
} as const

/**
 * Bounds of a node's timeout setting, percent of a commit window (`NodeRegistry.TIMEOUT_MIN_PCT` / `TIMEOUT_MAX_PCT`,
 * Solidity `QoS.TIMEOUT_MIN_PCT` / `TIMEOUT_MAX_PCT`): P = (max - O) / (max - min).
 */
export const TIMEOUT_MIN_PCT = 25
export const TIMEOUT_MAX_PCT = 100

/** `ModelRegistry.MAX_MODELS`: the most models one node is recorded as holding. */
export const MAX_MODEL_RECORDS = 16

/** `ModelRegistry.MAX_MODEL_ID_BYTES`: the longest model id (UTF-8 bytes) the registry records. */
export const MAX_MODEL_ID_BYTES = 256

// --- the chain client (createChainClient) ---

/** How long one RPC call (read, estimate, send, a probe such as `eth_chainId`) may take (ms). */
export const DEFAULT_RPC_TIMEOUT_MS = 15_000

/** How long to wait for a sent transaction (a deployment's too) to be mined (ms). Amoy mines a block about every 2 s. */
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

/**
 * Sends of one transaction the node refused because its nonce was taken (another sender of the same wallet, such as
 * `jobmesh claim` beside a running peer) before the error is thrown; the nonce is read from the chain before each.
 */
export const NONCE_TAKEN_ATTEMPTS = 3

/**
 * Sends of one transaction that another of the wallet's transactions replaced in the pool (same nonce, a higher fee:
 * two processes of one wallet that read the same pending nonce) before `TransactionReplacedError` is thrown. A
 * replaced transaction is never mined, so it is sent again with a fresh nonce.
 */
export const REPLACED_ATTEMPTS = 3

/** A reverted transaction that used at least this share (%) of its gas limit and replays cleanly ran out of gas. */
export const OUT_OF_GAS_USED_PERCENT = 95n
