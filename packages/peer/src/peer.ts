import { logger } from '@libp2p/logger'
import { Wallet } from 'ethers'
import { createChainClient } from '@jobmesh/contracts'
import { coordGuards, createAdmission } from './coord/index.js'
import { INDEX_DOC, createDocStore } from './crdt/index.js'
import { createWasmExecutor, wasmMicroJobExecutor } from './executor/index.js'
import { createNode } from './node/index.js'
import { createProcessor } from './processor/index.js'
import { startHoldProofServer, startReplicationServer } from './replication/index.js'
import { outputBudget, readProfiles } from './jobs/index.js'
import { createModelHoldings } from './models/index.js'
import { bondCapacity, chainClock, eligibleNodes, fundedJobs, jobJoins, leaveDraw, peerOwners, verifierSupply } from './settlement/index.js'
import { createContentStore, jobInputs } from './storage/index.js'
import { accountStatus, peerStatus } from './peer-status.js'
import { startChain } from './peer-chain.js'
import { retireExpiredJobs } from './job-expiry.js'
import { retireEndedJobs } from './job-retirement.js'
import { metricsFor, startObservability } from './peer-observe.js'
import { EventLog, describeJob, earningsCursor, readAccount } from './observe/index.js'
import { bondText, outputText, waitingText } from './waiting-lines.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { Registration } from './peer-chain.js'
import type { DocStore } from './crdt/index.js'
import type { MicroJobExecutor, WasmExecutor } from './executor/index.js'
import type { JobmeshNode, NodeInit } from './node/index.js'
import type { Processor, ProcessorInit } from './processor/index.js'
import type { OwnPause, Settlement, SettlementInit } from './settlement/index.js'
import type { ContentStore } from './storage/index.js'
import type { PeerStatus, WorkCounters } from './peer-status.js'
import { listenHttp } from './http/index.js'
import type { HttpAddress, HttpServer } from './http/index.js'
import type { AccountView, DescribeOptions, JobStory } from './observe/index.js'
import type { Deployment } from '@jobmesh/contracts'

export type { PeerStatus } from './peer-status.js'

const log = logger('jobmesh:peer')

/** The chain side of a peer: where the contracts are and whose wallet signs. */
export interface PeerChainInit {
  rpcUrl: string
  /** 0x-prefixed private key of the peer's wallet (payouts go to its address). */
  privateKey: string
  deployment: Deployment
  /** Stake (wei) the node keeps registered; registering on first start. */
  stake: bigint
  /**
   * The node's timeout setting: it commits verifications within this percent of a round's commit window (25..100;
   * below 100 the stake must cover minStake x 100 / pct). Set on chain at start when it differs; default: left as is.
   */
  commitTimeoutPct?: number
  /**
   * With bootstrap peers: how long the start waits for a connection to one before it registers or resumes the node in
   * the verifier draw (ms); none by then and it is refused with `NoPeerReachableError`, nothing sent to the chain.
   * Default `DEFAULT_JOIN_TIMEOUT_MS` (30 s).
   */
  joinTimeoutMs?: number
  settlement?: SettlementInit
}

export interface PeerInit extends NodeInit {
  /** GPU model name, or undefined for none ("Any" jobs only). */
  gpuModel?: string
  /** VRAM in GB. Default 0. */
  vramGb?: number
  /**
   * Models this peer keeps at hand (a job's `requirements.modelId`, e.g. `ipfs://<cid>` of weights or a data set):
   * jobs naming one are chosen first; `ipfs://` ones are fetched and pinned at start. Default none.
   */
  models?: string[]
  /** How long a job naming a model this peer does not hold is left to the model's holders (ms). Default 3 s (`DEFAULT_HOLDER_GRACE_MS`). */
  holderGraceMs?: number
  /** Process jobs (default true). False: a peer that only relays, stores and syncs. */
  process?: boolean
  /**
   * The MicroJob executor, or a factory of it given the peer's content store and WebAssembly executor (the peer
   * stops the latter); default: the WASM adapter over them.
   */
  executor?: MicroJobExecutor | ((parts: { store: ContentStore, wasm: WasmExecutor }) => MicroJobExecutor)
  processor?: Omit<ProcessorInit, 'executor' | 'storeOutput' | 'onJobComplete' | 'hardware'>
  /** Chain settlement; without it the peer processes but does not finalize, verify or claim. */
  chain?: PeerChainInit
  /** Peers besides its producer that must hold each output before this peer submits a job. Default 3. */
  outputReplicas?: number
  /**
   * The most bytes all outputs of one job may come to for this peer to take it (a job's bound: MicroJobs x its
   * `estimate.maxOutputBytes`, 64 MiB each when it declares none); a finalizer holds every output. Default: no bound.
   */
  maxJobOutputBytes?: number
  /**
   * Cuts the start short: `createPeer` stops what it started and rejects with the signal's reason (a chain call
   * under way is abandoned, a transaction already sent stays sent). Not used once the peer is up.
   */
  signal?: AbortSignal
  /** Serve the dashboard, its live state and `/metrics` here (`jobmesh start --http`). Default: no listener. */
  http?: HttpAddress
}

/** A running jobmesh peer: node, CRDT, storage, executor, processor and (with a chain) settlement. */
export interface Peer {
  node: JobmeshNode
  docs: DocStore
  store: ContentStore
  processor?: Processor
  chain?: ChainClient
  settlement?: Settlement
  /** What this start did in the registry (registered, resumed, stake added, the slashes a top-up made good); undefined without a chain. */
  registration?: Registration
  /** Notable events (finalizations, verifications, claims, errors, ...), typed, with the recent ones kept. */
  events: EventLog
  /** The HTTP listener (dashboard, `/metrics`) when `init.http` was given. */
  http?: HttpServer
  /** What `jobmesh status` shows (no network). */
  status(): PeerStatus
  /** The status plus this peer's wallet from the chain: balance, stake, QoS score, earnings; a chain it cannot read is `chain.error` (it never rejects). */
  report(options?: { signal?: AbortSignal }): Promise<PeerStatus>
  /** This peer's wallet on the chain; undefined without a chain. */
  account(options?: { signal?: AbortSignal }): Promise<AccountView | undefined>
  /** A job's story: who can take it and what it is waiting for now. */
  describe(jobId: string, options?: DescribeOptions): Promise<JobStory>
  /** Stops everything in reverse order; flushes the CRDT. */
  stop(): Promise<void>
}

/**
 * Starts a jobmesh peer (what `jobmesh start` runs): the libp2p + helia node persisted under `dataDir`, the CRDT
 * doc store, the content store, the WebAssembly executor, the processor loop and, when `chain` is given, the
 * registration, finalization, verification and claims of DESIGN section 8.
 */
export async function createPeer (init: PeerInit = {}): Promise<Peer> {
  const startedAt = Date.now()
  const { registry, metrics } = metricsFor(init.http)
  init.signal?.throwIfAborted()
  const node = await createNode({ ...init, metrics: init.metrics ?? metrics })
  const stack: Array<() => Promise<void>> = [async () => { await node.stop() }]
  const stopAll = async (): Promise<void> => {
    for (const stop of stack.reverse()) {
      await stop().catch(err => { log.error('stop failed: %e', err) })
    }
  }
  try {
    // a chain: only registered nodes (and a job's creator) may write job docs; every doc's records are guarded
    const client = init.chain == null
      ? undefined
      : createChainClient({ rpcUrl: init.chain.rpcUrl, signer: new Wallet(init.chain.privateKey), deployment: init.chain.deployment })
    const admission = client == null
      ? undefined
      : createAdmission({
        isRegistered: async peerId => (await client.peerAddress(peerId)) != null,
        jobKnown: async jobId => (await client.job(jobId)).status !== 'None',
        index: () => docs.get(INDEX_DOC)
      })
    const docs = createDocStore(node, { guards: coordGuards(), admit: admission?.admit, admitUpdate: admission?.admitUpdate })
    stack.push(async () => { await docs.stop() })
    const store = createContentStore(node)
    let executor: MicroJobExecutor
    if (init.executor != null && typeof init.executor !== 'function') {
      executor = init.executor
    } else {
      const wasm = createWasmExecutor()
      stack.push(async () => { await wasm.stop() })
      executor = init.executor != null ? init.executor({ store, wasm }) : wasmMicroJobExecutor({ store, executor: wasm })
    }
    const work: WorkCounters = { microJobsDone: 0, microJobsFailed: 0, ownerships: 0 }
    // the dashboard's address is taken before the chain: a start refused for a busy port has not registered or staked
    const listener = init.http == null ? undefined : await listenHttp(init.http)
    if (listener != null) {
      stack.push(async () => {
        if (!listener.listening) return
        listener.closeAllConnections()
        await new Promise(resolve => listener.close(resolve))
      })
    }
    init.signal?.throwIfAborted()
    const chain = await startChain(init, { node, docs, store, executor, client, registered: admission?.registered }, stack)
    init.signal?.throwIfAborted()
    // a job's inputs, held for the DApp (replication) and before working on it (processor): one pin of them at a time
    const inputs = jobInputs({ store })
    const replication = await startReplicationServer({ libp2p: node.libp2p, store, inputs, chain: chain?.client })
    stack.push(async () => { await replication.stop() })
    const holdProofs = await startHoldProofServer({ libp2p: node.libp2p, blockstore: node.helia.blockstore })
    stack.push(async () => { await holdProofs.stop() })
    const events = new EventLog()
    const holdings = createModelHoldings({
      store,
      events,
      chain: chain?.client,
      address: chain?.address,
      profiles: async () => (await readProfiles({ docs })).values()
    }, { models: init.models, holderGraceMs: init.holderGraceMs })
    holdings.start()
    stack.push(async () => { await holdings.stop() })
    init.signal?.throwIfAborted()
    let processor: Processor | undefined
    const maxJobOutputBytes = init.maxJobOutputBytes
    const budget = maxJobOutputBytes == null
      ? undefined
      : outputBudget({
        maxJobOutputBytes,
        onOver: (job, bound) => { events.push({ kind: 'job:waiting', level: 'info', jobId: job.jobId, text: outputText(job.jobId, job.spec, bound, maxJobOutputBytes) }) }
      })
    // the registry's owner of each profile's PeerId, kept between counts: anybody can publish profiles
    const owners = chain == null ? undefined : peerOwners({ chain: chain.client })
    const supply = chain == null
      ? undefined
      : verifierSupply({
        chain: chain.client,
        eligible: async (req, options) => await eligibleNodes({ docs, chain: chain.client, owners }, req, options)
      }, {
        onWaiting: (job, nodes, fitting) => {
          events.push({ kind: 'job:waiting', level: 'info', jobId: job.jobId, text: waitingText(job, nodes, fitting) })
        },
        onGrowth: () => { processor?.wake() }
      })
    if (supply != null) {
      await supply.refresh({ signal: init.signal }).catch((err: Error) => { log('reading the active nodes failed: %e', err) })
      supply.start()
      stack.push(async () => { supply.stop() })
    }
    // only jobs whose results this node could submit (lock their bond): see settlement/bond-capacity.ts
    const bonds = chain == null
      ? undefined
      : bondCapacity({ chain: chain.client }, {
        onShort: (job, bond, free) => {
          // a node that asked to exit while it runs (`jobmesh exit`) has no free stake: said as the exit, not the stake
          const exiting = chain.registration.exiting || free > 0n
            ? Promise.resolve(chain.registration.exiting)
            : chain.client.nodeInfo(chain.address).then(n => n.exiting, () => false)
          void exiting.then(e => { events.push({ kind: 'job:waiting', level: 'info', jobId: job.jobId, text: bondText(job.jobId, bond, free, e) }) })
        },
        onGrowth: () => { processor?.wake() }
      })
    if (bonds != null) {
      await bonds.refresh({ signal: init.signal }).catch((err: Error) => { log('reading this node\'s free stake failed: %e', err) })
      bonds.start()
      stack.push(async () => { bonds.stop() })
    }
    // on a chain, only a job the escrow holds open, funded, with the announced spec is worked on
    // a gate that lifts wakes the processor: otherwise every peer of a new job waited out an idle pause, and the
    // first to wake took MacroJobs the others would have claimed
    // and in its round on chain: an announcement's round is anybody's word
    const funded = chain == null ? undefined : fundedJobs({ chain: chain.client }, { onOpen: () => { processor?.wake() }, onRound: () => { processor?.wake() } })
    if (funded != null) stack.push(async () => { funded.stop() })
    // deadlines are read against the chain's time, as the escrow reads them
    const clock = chain == null ? undefined : chainClock({ chain: chain.client })
    if (clock != null) {
      await clock.refresh({ signal: init.signal }).catch((err: Error) => { log('reading the chain\'s time failed: %e', err) })
      clock.start()
      stack.push(async () => { clock.stop() })
    }
    if (init.process !== false) {
      // a job this node works on is joined on chain before its first MicroJob here: a submission may name only nodes
      // that joined as payees, so work done before the join is mined could go unpaid (docs/settlement.md, Defences 28)
      const joins = chain == null
        ? undefined
        : jobJoins({ chain: chain.client }, {
          onFailed: (jobId, err) => {
            events.push({ kind: 'error', level: 'error', jobId, text: `could not join job ${jobId} on chain (${err.name}: ${err.message}): no work on it here until a later join succeeds` })
          }
        })
      if (joins != null) stack.push(async () => { joins.stop() })
      processor = createProcessor({ ...node, docs }, {
        ...init.processor,
        executor,
        storeOutput: async bytes => await store.addOutput(bytes),
        prepareJob: async (job, options) => {
          await inputs.hold(job, options)
          holdings.acquired(job)
        },
        // at this peer's first turn of the job, after its inputs: a job refused for its inputs, or with nothing open
        // for this peer, costs no join's gas
        joinJob: joins == null ? undefined : async (jobId, round, options) => { await joins.join(jobId, round, options) },
        // funded first: an announcement nobody paid for is worth no model-holder clock, no word about verifiers
        deadlineClock: clock?.now,
        mayCoordinate: admission?.registered,
        deferJob: job => funded?.isOpen(job) === false || budget?.over(job) === true || holdings.defer(job) ||
          bonds?.canBond({ jobId: job.jobId, fee: job.spec.price }) === false ||
          supply?.canVerify({ jobId: job.jobId, verifiers: job.spec.verifiers, requirements: job.spec.requirements }) === false,
        onJobComplete: chain?.settlement == null
          ? undefined
          : async jobId => { await chain.settlement.onJobComplete(jobId) },
        rounds: chain?.settlement,
        roundOf: funded?.round,
        runLimitMs: funded?.runLimitMs,
        settled: funded?.settled,
        pricing: chain?.pricing ?? init.processor?.pricing,
        hardware: { gpuModel: init.gpuModel ?? 'Any', vramGb: init.vramGb ?? 0, heldModelIds: holdings.held }
      })
      countWork(processor, work)
      init.signal?.throwIfAborted()
      const settlement = chain?.settlement
      // completed by another peer's result: its finalizer may never submit (takeover.ts)
      if (settlement != null) processor.addEventListener('job:complete', (evt) => { if (!evt.detail.finalizer) settlement.onJobCompletedElsewhere(evt.detail.jobId) })
      await processor.start()
      const p = processor
      stack.push(async () => { await p.stop() })
    }
    // a job over on chain is left and its docs closed (job-retirement.ts); a restart opens none of them again
    if (chain != null) {
      const detach = retireEndedJobs({ settlement: chain.settlement, processor, docs })
      stack.push(async () => { detach() })
    }
    // and one past its deadline that the escrow holds open (or never funded): nothing can pay for it any more
    if (funded != null && processor != null && clock != null) {
      const expiry = retireExpiredJobs({ funded, processor, docs, clock: clock.now })
      stack.push(async () => { expiry.stop() })
    }
    // stopped, the node leaves the verifier draw (the next start resumes it): drawn while down it would miss its seed
    // and be slashed the bond. First to run at stop: the stack stops in reverse.
    if (chain != null) {
      chain.leavesDrawAtStop()
      stack.push(async () => {
        // nothing new goes out from here: a submission now would leave a draw this stopped node cannot make
        chain.settlement.halt()
        if (await leaveDraw(chain.client)) return
        events.push({
          kind: 'error',
          level: 'error',
          text: 'could not take this node out of the verifier draw as it stops (NodeRegistry.pause failed: is the chain reachable?): ' +
            'drawn while it is down it misses its seed and is slashed the bond; start it again soon (the start resumes it)'
        })
      })
    }
    const http = await startObservability({ node, docs, events, processor, settlement: chain?.settlement, chain: chain?.client, address: chain?.address, models: holdings.models },
      { http: init.http, server: listener, registry, gpuModel: init.gpuModel, vramGb: init.vramGb }, stack)
    // the pause duty's last report: `report()` says why the node is paused when the duty left it so
    let ownPause: OwnPause | undefined
    chain?.settlement.addEventListener('paused', (evt) => { ownPause = (evt as CustomEvent<OwnPause>).detail })
    const earnings = chain == null ? undefined : earningsCursor(chain.client, chain.address)
    const account = async (options: { signal?: AbortSignal } = {}): Promise<AccountView | undefined> =>
      chain == null ? undefined : await readAccount(chain.client, chain.address, { ...options, earnings })
    const status = (): PeerStatus => peerStatus({ node, docs, processor, work, startedAt, init, models: holdings.models(), fetchingModels: holdings.fetching(), givenUpModels: holdings.givenUp(), chainAddress: chain?.address, finalizing: chain?.settlement.finalizing() })
    return {
      node,
      docs,
      store,
      processor,
      chain: chain?.client,
      settlement: chain?.settlement,
      registration: chain?.registration,
      events,
      http,
      status,
      account,
      async report (options) {
        const s = status()
        try {
          const a = await account(options)
          if (a != null && s.chain != null) s.chain = { ...s.chain, ...accountStatus(a, ownPause) }
        } catch (err) {
          // the chain away: said, not left out (the wallet's standing is then unknown)
          const e = err as Error
          const error = options?.signal?.aborted === true ? `the chain did not answer in time (${e.message})` : `${e.name}: ${e.message}`
          if (s.chain != null) s.chain = { ...s.chain, error }
        }
        return s
      },
      describe: async (jobId, options) => describeJob({ docs, chain: chain?.client, libp2p: node.libp2p, privateKey: node.privateKey, peerId: node.peerId.toString() }, jobId, options),
      stop: stopAll
    }
  } catch (err) {
    await stopAll()
    throw err
  }
}

function countWork (processor: Processor, work: WorkCounters): void {
  processor.addEventListener('microjob:done', () => { work.microJobsDone++ })
  processor.addEventListener('microjob:error', () => { work.microJobsFailed++ })
  processor.addEventListener('ownership', () => { work.ownerships++ })
}

