/** Peers a devnet runs when not told. */
export const DEFAULT_DEVNET_PEERS = 4

/** VRAM (GB) each devnet peer registers with when not told (no GPU model: the "Any" group). */
export const DEFAULT_DEVNET_VRAM_GB = 16

/** Stake each devnet peer registers with, in ETH. */
export const DEFAULT_DEVNET_STAKE = '10'

/** How long a peer process may take to print "ready", in ms. */
export const DEFAULT_PEER_START_TIMEOUT_MS = 60_000

/** How long a peer process may take to exit after SIGTERM before it is killed, in ms. */
export const DEFAULT_PEER_STOP_TIMEOUT_MS = 15_000

/** Anvil account 0 deploys the contracts and is the DApp's wallet; peers use accounts 1..N. */
export const DAPP_ACCOUNT = 0

/**
 * Seconds per block of the devnet chain. Not automine: settlement waits for blocks that come after a submission
 * (the verifier draw's entropy, commit and reveal windows), and with automine no block comes until someone sends a
 * transaction. One second keeps the demo quick and still exercises real block times (Amoy: `--block-time 2`).
 */
export const DEFAULT_DEVNET_BLOCK_TIME = 1

/** The last lines of each peer's output a devnet keeps (`PeerProcess.output`): a devnet runs for days. */
export const MAX_PEER_OUTPUT_LINES = 10_000
