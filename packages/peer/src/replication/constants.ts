/** Defaults of replication (docs/settlement.md, Availability); applied as `init.x ?? DEFAULT_X`. */

/** The libp2p protocol a peer asks others to hold a job's inputs or outputs with. */
export const REPLICATION_PROTOCOL = '/jobmesh/replicate/1.0.0'

/** Peers besides its producer that must hold each output before a job is submitted. */
export const DEFAULT_OUTPUT_REPLICAS = 3

/** Peers that must confirm they hold a job's spec, code and data before `submit` returns. */
export const DEFAULT_INPUT_REPLICAS = 1

/** How long one replication round (ask, fetch, pin, answer) may take (ms). */
export const DEFAULT_REPLICATION_TIMEOUT_MS = 120_000

/** Largest request or answer on the replication protocol (bytes). */
export const MAX_REPLICATION_MESSAGE_BYTES = 4096

/** Largest manifest a replica fetches (bytes). */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024

/** Requests one peer serves at once. */
export const MAX_INBOUND_REPLICATION_STREAMS = 8

/**
 * Most bytes one `outputs` request may make a peer hold: the manifest plus the `size` of every output it lists
 * (each output is fetched with its `size` as its limit).
 */
export const DEFAULT_MAX_REPLICATION_REQUEST_BYTES = 1024 * 1024 * 1024

/** Most bytes of `outputs` requests one sender may make a peer hold per {@link DEFAULT_REPLICATION_SENDER_WINDOW_MS}. */
export const DEFAULT_MAX_REPLICATION_SENDER_BYTES = 4 * 1024 * 1024 * 1024

/** The window of the per-sender byte budget (ms). */
export const DEFAULT_REPLICATION_SENDER_WINDOW_MS = 3_600_000

/** The libp2p protocol a peer proves it holds blocks with (a challenge of a nonce and CIDs, an answer of digests). */
export const HOLD_PROOF_PROTOCOL = '/jobmesh/hold-proof/1.0.0'

/** Most blocks one hold-proof challenge names. */
export const MAX_HOLD_PROOF_BLOCKS = 16

/** Challenges one peer answers at once. */
export const MAX_INBOUND_HOLD_PROOF_STREAMS = 4

/**
 * How long a holder has to answer a hold-proof challenge (ms): reading at most {@link MAX_HOLD_PROOF_BLOCKS} blocks
 * of its own and hashing them takes milliseconds. The challenged blocks are withheld from every peer meanwhile, so a
 * liar that does not answer delays the peers fetching those blocks from the challenger by this much.
 */
export const DEFAULT_HOLD_PROOF_TIMEOUT_MS = 5_000

/**
 * Blocks a holder is challenged with (drawn at random from every block of the content; `hold-check.ts`): a peer that
 * holds a share `f` of them passes with about `f ^ 8`.
 */
export const DEFAULT_HOLD_PROOF_SAMPLE = 8
