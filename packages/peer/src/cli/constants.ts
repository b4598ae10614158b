import { homedir } from 'node:os'
import { join } from 'node:path'

/** Exit code for bad flags and arguments (as most Unix tools do). */
export const EXIT_USAGE = 2

/** The stake `jobmesh start --rpc ...` registers with and tops a paused node up to, when `--stake` is not given (ETH). */
export const DEFAULT_STAKE_ETH = '0.1'

/** Exit code for a runtime failure. */
export const EXIT_FAILURE = 1

/** Data dir when neither `--data-dir` nor `JOBMESH_DATA_DIR` is given. */
export const DEFAULT_DATA_DIR = join(homedir(), '.jobmesh')

/** Name of the control socket a running peer serves inside its data dir (`jobmesh status` reads it). */
export const CONTROL_SOCKET = 'control.sock'

/** How long `jobmesh status` waits for the running peer to answer, in ms. */
export const DEFAULT_STATUS_TIMEOUT_MS = 5_000
/** How long a CLI whose command has returned may wait for what is still open before it exits (ms). */
export const COMMAND_END_GRACE_MS = 1_000

/** An error's cause is printed on one line of at most this many characters. */
export const MAX_CAUSE_CHARS = 240

/**
 * Fewest peers `jobmesh devnet` runs: with one, no job could ever be verified (its submitter never verifies it). A job
 * has k >= 3 verifiers drawn among the nodes besides its submitter, so it needs k + 1 >= 4 registered nodes to be
 * released: two or three devnet peers need more (the printed `jobmesh start` line, with the spare key).
 */
export const MIN_DEVNET_PEERS = 2

/**
 * Most peers `jobmesh devnet` runs: each is an OS process with its libp2p node, stores and WebAssembly workers
 * (~150 MB); a larger network on one machine is a bench's job (bench/coordination.bench.js runs 16 peer processes).
 */
export const MAX_DEVNET_PEERS = 32

/** Lines of a devnet peer's own output the devnet prints when it exits. */
export const EXITED_PEER_LINES = 5
