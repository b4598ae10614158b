/** Funded dev accounts of each pooled anvil; a test asking for more gets an anvil of its own. */
export const POOL_ANVIL_ACCOUNTS = 10

/**
 * The block times the pool keeps one anvil for in each test worker (`undefined`: automine, a block per
 * transaction); a test asking for another gets an anvil of its own.
 */
export const POOL_BLOCK_TIMES: ReadonlyArray<number | undefined> = [undefined, 0.1, 0.5]

/** How long one JSON-RPC call to a pooled anvil may take, in ms. */
export const POOL_RPC_TIMEOUT_MS = 10_000

/** Poll interval of the chain clients a {@link startChain} fixture makes, in ms. */
export const DEFAULT_CHAIN_POLL_MS = 50
