import type { MicroJobExecutor } from '../executor/index.js'
import type { RoundOracle } from '../jobs/index.js'
import type { CoordMetrics, JobFailuresInit, LeasesInit, RoomPubSub, TypedEvents } from '../coord/index.js'
import type { JobSpec, PeerState, PricingParams, TrafficCounters } from '../protocol/index.js'
import type { AbortOptions, PeerId, PrivateKey } from '@libp2p/interface'
import type { ConfirmOptions, ConfirmResult, OpenOptions } from '../crdt/index.js'
import type * as Y from 'yjs'

export interface ProcessorComponents {
  peerId: PeerId
  privateKey: PrivateKey
  pubsub: RoomPubSub
  /**
   * The CRDT doc store (`createDocStore`). With `confirm`, a MacroJob lease claim exchanges state with every
   * connected peer before it re-reads (concurrent claims cannot both win); without it only the settle window does.
   */
  docs: { open(name: string, options?: Pick<OpenOptions, 'signal' | 'catchUp' | 'catchUpWaitMs'>): Promise<Y.Doc>, confirm?(name: string, options?: ConfirmOptions): Promise<ConfirmResult> }
  clock?: () => number
  /** Counts messages, record signatures and verifications (benches, profiles); pass the same one to the doc store. */
  counters?: TrafficCounters
}

export interface ProcessorInit {
  executor: MicroJobExecutor
  /** Where output bytes go; returns a CID string. Default: nowhere (only the hash is recorded). */
  storeOutput?(bytes: Uint8Array): Promise<string | undefined>
  /**
   * Called before this peer first works on a job (each round): the peer fetches and pins the job's spec, code and
   * data here (`pinJobContent`), so the job survives its DApp going offline. A failure skips the job for now;
   * `ContentTooLargeError` (inputs larger than the job declares) retires it here as `refused`.
   */
  prepareJob?(job: { jobId: string, specCid: string, spec: JobSpec }, options: AbortOptions): Promise<void>
  /**
   * Awaited before this peer's first queue turn of a job's round (once per job and round here), when a room of it has
   * open items for this peer: its join of that round on chain (`jobJoins`), so work is done only for a round whose
   * submission may name this peer, and a peer that finds nothing open in a job (its last items taken by others) pays
   * no join. A failure puts the job after the healthy ones for now (as a failed MicroJob does); a join still under way
   * is awaited again then.
   */
  joinJob?(jobId: string, round: number, options: AbortOptions): Promise<void>
  /** Called once on the peer whose result completed the job (finalization is idempotent). */
  onJobComplete?(jobId: string): void | Promise<void>
  /**
   * The network's pricing parameters (the escrow's `pricing()`), from which every job's task value is computed for
   * job choice. Default {@link DEFAULT_PRICING} (the escrow's deployment defaults).
   */
  pricing?: PricingParams
  /** This peer's hardware for job choice. Default: `{ gpuModel: 'Any', vramGb: 0 }` (runs only "Any" jobs with no VRAM need). */
  hardware?: PeerState
  /**
   * Jobs this peer leaves to others for now (holder-first: a job naming a model it does not hold, while the model's
   * holders may take it; a job with more verifiers than the network can draw). Asked again at every choice; default:
   * none.
   */
  deferJob?(job: { jobId: string, modelId?: string, spec: JobSpec }): boolean
  /**
   * Who may publish on a job's coordination topics (its rooms and `/macro`): a message of anyone else is ignored. A
   * peer that may not write the job's docs cannot run its MicroJobs either, so it has nothing to say there.
   * `createPeer` with a chain passes the registry check its doc store admits job-doc writers with. Default: anyone
   * (a network without a chain).
   */
  mayCoordinate?(peerId: string): Promise<boolean>
  /**
   * The time a job's deadline is read against (unix ms): the escrow's is the latest block's. Default `Date.now` (no
   * chain).
   */
  deadlineClock?: () => number
  leases?: LeasesInit
  heartbeatMs?: number
  ownerTimeoutMs?: number
  maxBatch?: number
  /** MicroJobs asked for per queue turn. Default {@link DEFAULT_WANT}. */
  want?: number
  discoveryMs?: number
  idleMs?: number
  maxMessageBytes?: number
  /**
   * Publish "MicroJobs complete" on the job's topic, one notice per result write listing its MicroJobs. Default
   * false: the results' CRDT update already tells every peer of the job, signed; nothing reads the notice.
   */
  announceComplete?: boolean
  /** Longest time a finished MicroJob's result waits to be written with the rest of its turn (ms). Default {@link DEFAULT_RESULT_FLUSH_MS}. */
  resultFlushMs?: number
  /** Rounds after a rejection: whose results do not count (slashed submitters). Default: nobody is excluded. */
  rounds?: RoundOracle
  /**
   * A job's round on chain when known (undefined: not read yet), given the round the peer holds or an announcement
   * names; a job is then worked on in that round, whatever announcements say. Default: the announced round (no chain).
   */
  roundOf?(jobId: string, announced: number): number | undefined
  /**
   * The longest one run of a job's MicroJob may take, in ms, besides the spec's own bound (`runTimeoutMs`): on a chain,
   * what the job's commit window gives a verifier per sampled re-run (`FundedJobs.runLimitMs`). Default: no other bound.
   */
  runLimitMs?(jobId: string): number | undefined
  /**
   * How long after a job ended here on the summaries of MacroJobs this peer did not work on their docs are read, to
   * check the summaries (ms). Default {@link DEFAULT_SUMMARY_CHECK_MS}.
   */
  summaryCheckMs?: number
  /** Whether a job is settled on chain for good (`FundedJobs.settled`), as `jobmesh status` shows it. Default: never. */
  settled?(jobId: string): boolean
  /** Poison isolation: failed attempts after which a job is given up (coord/failures.ts). */
  failures?: JobFailuresInit
  /** This peer gives a job up after this many of its own failed attempts. Default {@link DEFAULT_LOCAL_MAX_FAILURES}. */
  localMaxFailures?: number
}

export interface MicroJobStartDetail {
  jobId: string
  macroIndex: number
  index: number
  leaseTerm: number
  /** ms from this peer being ready for work (previous MicroJob done, or queue request) to this start. */
  waitMs: number
  /** ms from the lock (lease written) to this start. */
  claimToStartMs: number
}

export interface ProcessorEvents {
  'microjob:start': MicroJobStartDetail
  'microjob:done': { jobId: string, macroIndex: number, index: number, leaseTerm: number, outputHash: Uint8Array }
  'microjob:error': { jobId: string, macroIndex: number, index: number, error: Error }
  /** This peer became owner of a MacroJob queue. */
  ownership: { jobId: string, macroIndex: number, epoch: number, term: number }
  /** The queue owner of a MacroJob room this peer is in, from every accepted snapshot and own ownership (observability). */
  'room:owner': { jobId: string, macroIndex: number, owner: string, epoch: number, term: number }
  'job:complete': { jobId: string, finalizer: boolean }
  /** A queue turn this peer asked a room for went unanswered for `waitedMs`: it left the room to choose again. */
  'turn:unanswered': { jobId: string, macroIndex: number, waitedMs: number, owner?: string }
  /**
   * The job reached the failure bound (its MicroJobs fail everywhere): this peer gave it up. `earlier`: on failures
   * this peer recorded before a restart alone (it was given up then; no run of this process failed).
   */
  'job:failed': { jobId: string, attempts: number, peers: number, reasons: string[], details?: string[], earlier?: boolean }
}

export interface Processor extends TypedEvents<ProcessorEvents> {
  readonly metrics: CoordMetrics
  /** Starts the loop. */
  start(): Promise<void>
  /** Stops the loop and leaves every room (`abrupt`: no handoff, like a crash). */
  stop(options?: { abrupt?: boolean }): Promise<void>
  /**
   * Looks at the known jobs again now, instead of at the end of an idle pause: a job `deferJob` held back may be
   * ready, or a job's round on chain (`roundOf`) may have moved.
   */
  wake(): void
  /**
   * The job is over on chain (`settled`: released or refunded), or can never be paid (`expired`: its deadline passed
   * with the escrow holding it open or never funded): this peer stops working on it, leaves its rooms and its
   * `/macro` topic, and never chooses it again. Its docs are the caller's to close (peer.ts closes them all).
   */
  retire(jobId: string, why?: RetiredAs): void
  /** Writes a signed JobAnnouncement to `jobmesh/index` and publishes it on /jobs. */
  announceJob(spec: JobSpec, jobId: string, specCid: string): Promise<void>
  /** Every owner seen per `jobId/macroIndex` (observability, tests). */
  ownersSeen(): Map<string, Set<string>>
  /** The jobs this peer knows of (from announcements), for status displays. */
  knownJobs(): KnownJobSummary[]
  /** The job this peer is working on now, if any. */
  currentJob(): string | undefined
  /** The model (`requirements.modelId`) of the job this peer last worked on, if it named one. */
  loadedModel(): string | undefined
}

/** Why a job was retired ({@link Processor.retire}). */
export type RetiredAs = 'settled' | 'expired' | 'refused'

/** A job as `jobmesh status` lists it. */
export interface KnownJobSummary {
  jobId: string
  microJobs: number
  /** Task value (wei per estimated second), a decimal string: exact (as a number it lost wei past 2^53). */
  value: string
  /** The spec's deadline (unix ms): no result is accepted on chain after it. */
  deadline: number
  /**
   * `settled`: released or refunded on chain (whether or not this peer worked on it: `settled` also after a restart);
   * `expired`: its deadline passed while the escrow held it open (or never funded it), so nothing can pay for it;
   * `refused`: its inputs are larger than the job declares (`ContentTooLargeError` from `prepareJob`): not taken here.
   */
  state: 'open' | 'working' | 'complete' | 'failed' | RetiredAs
}
