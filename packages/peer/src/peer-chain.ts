import { logger } from '@libp2p/logger'
import { verifyDeployment } from '@jobmesh/contracts'
import { publishProfile } from './jobs/index.js'
import { holdChecks, provenHolders, replicateOutputs } from './replication/index.js'
import { applyCommitTimeout, createSettlement, datastoreJournal, ensureSeedCommitted, leaveDraw, SLASH_LOOKBACK_BLOCKS } from './settlement/index.js'
import { checkStakeFunds, explainFunds } from './stake-funds.js'
import { connectedWithin, DEFAULT_JOIN_TIMEOUT_MS, NoPeerReachableError } from './node/index.js'
import type { ChainClient, NodeSlash, RegisterResult } from '@jobmesh/contracts'
import type { DocStore } from './crdt/index.js'
import type { MicroJobExecutor } from './executor/index.js'
import type { JobmeshNode } from './node/index.js'
import type { PeerInit } from './peer.js'
import type { PricingParams } from './protocol/index.js'
import type { Settlement } from './settlement/index.js'
import type { ContentStore } from './storage/index.js'

const log = logger('jobmesh:peer')

/** What a peer on a chain adds: its client, settlement, wallet, the network's pricing and what its start did in the registry. */
export interface ChainParts {
  client: ChainClient
  settlement: Settlement
  address: string
  /** The escrow's pricing parameters: the processor's task values use the network's, not the defaults. */
  pricing: PricingParams
  registration: Registration
  /**
   * The peer's own stop takes the node out of the verifier draw from now on (the first thing it does): the stop of a
   * start cut short, which does it until then, stands down.
   */
  leavesDrawAtStop(): void
}

/** What a start did in the registry and, when it topped the stake up, the recent slashes that had taken it. */
export interface Registration extends RegisterResult {
  /** The node's slashes in the last {@link SLASH_LOOKBACK_BLOCKS} blocks, oldest first (only read when the stake was topped up). */
  slashes: NodeSlash[]
}

/**
 * Joins the chain as `jobmesh start` does: checks the deployment, commits the verifier seed, registers (or tops up and
 * resumes) the node, publishes its profile and starts its settlement; undefined without a chain. `parts.registered`:
 * the admission's cached "is a registered node" (whose "held" of outputs counts). What it started is pushed on `stack`.
 */
export async function startChain (init: PeerInit, parts: { node: JobmeshNode, docs: DocStore, store: ContentStore, executor: MicroJobExecutor, client?: ChainClient, registered?: (peerId: string) => Promise<boolean> },
  stack: Array<() => Promise<void>>): Promise<ChainParts | undefined> {
  const client = parts.client
  if (init.chain == null || client == null) {
    return undefined
  }
  // the deployment file names this chain and its contracts are there: else every call below fails obscurely
  const signal = init.signal
  const options = { signal }
  await verifyDeployment(init.chain.deployment, client.provider, signal)
  const address = await client.address()
  const pricing = await client.pricing(options)
  const gpuModel = init.gpuModel ?? 'Any'
  const vramGb = init.vramGb ?? 0
  // the registry may draw this node for a waiting job in the block that registers it: settlement watches from here
  const since = await client.blockNumber(options)
  let registered: RegisterResult
  // a wallet or a data dir that is another node's, or other hardware than the registry's: refused before anything is
  // sent (the verifier seed's commitment below is a transaction)
  await client.checkRegistration({ peerId: parts.node.peerId.toString(), gpuModel, vramGb }, options)
  // a node that reaches no peer cannot fetch what a verification needs: drawn, it would be slashed. With bootstrap
  // peers given, one must answer before the node registers or resumes (the first peer of a network has none)
  await requireAPeer(parts.node, init.bootstrap ?? [], init.chain.joinTimeoutMs ?? DEFAULT_JOIN_TIMEOUT_MS, signal)
  // the stake it must still add is checked before the first transaction (the seed commitment costs gas too)
  await checkStakeFunds(client, address, init.chain.stake, options)
  // a start cut short (Ctrl-C, a failure) once its registration or resume may be sent left the node in the verifier
  // draw with nothing running it: drawn, it missed its seed and was slashed, and the registry paused it. Until the
  // peer's own stop takes this over (`leavesDrawAtStop`), the stop of what started takes the node out of the draw
  let leaveAtStop = true
  try {
    // the verifier seed first: a node drawn before it committed one could not vote (and would be slashed)
    await ensureSeedCommitted(client, options)
    stack.push(async () => {
      if (leaveAtStop && !await leaveDraw(client)) log.error('a start cut short could not take %s out of the verifier draw: start it again soon', address)
    })
    registered = await client.ensureRegistered({ peerId: parts.node.peerId.toString(), privateKey: parts.node.privateKey, gpuModel, vramGb, stake: init.chain.stake }, options)
  } catch (err) {
    // refused before anything was sent: the wallet's node is another data dir's (maybe running: pausing it took a
    // healthy node out of the draw and zeroed its incentive share), or registered with other hardware
    const name = (err as Error).name
    if (name === 'WalletInUseError' || name === 'PeerIdInUseError' || name === 'HardwareMismatchError') leaveAtStop = false
    if (name === 'AbortError') throw err
    throw await explainFunds(client, address, init.chain.stake, err as Error)
  }
  const registration = { ...registered, slashes: registered.registered || registered.stakeAdded === 0n ? [] : await recentSlashes(client, address, since, signal) }
  const timeoutPct = init.chain.commitTimeoutPct
  if (timeoutPct != null) {
    const stop = new AbortController()
    stack.push(async () => { stop.abort() })
    await applyCommitTimeout(client, address, timeoutPct, AbortSignal.any([stop.signal, ...(signal != null ? [signal] : [])]))
  }
  if (client.contracts.incentivePool != null) {
    // the pool records shares lazily: from this start on, this node earns its share (jobmesh claim records it again)
    await client.pokeIncentive(address, options).catch((err: Error) => { log('recording the incentive share of %s failed: %e', address, err) })
  }
  signal?.throwIfAborted()
  await publishProfile({ docs: parts.docs, privateKey: parts.node.privateKey }, { address, gpuModel, vramGb }, options)
  const self = parts.node.peerId.toString()
  const proofs = holdChecks(parts.node)
  const settlement = createSettlement({
    docs: parts.docs,
    chain: client,
    store: parts.store,
    privateKey: parts.node.privateKey,
    executor: parts.executor,
    journal: datastoreJournal(parts.node.datastore),
    // a replica counts once it proved it holds blocks of the manifest and outputs (withheld here while it answers)
    replicate: async (jobId, manifest, producers, options) => await replicateOutputs({ libp2p: parts.node.libp2p, self },
      jobId, manifest.cid, producers, {
        replicas: init.outputReplicas,
        counts: provenHolders(proofs(manifest.cid, [manifest.cid, ...manifest.outputs]), parts.registered),
        signal: options.signal
      })
  }, { livePeers: () => parts.node.libp2p.getPeers().map(String), ...init.chain.settlement })
  await settlement.start({ since })
  stack.push(async () => { await settlement.stop() })
  log('registered %s as %s', parts.node.peerId, address)
  return { client, settlement, address, pricing, registration, leavesDrawAtStop: () => { leaveAtStop = false } }
}

/** The node's slashes in the blocks before `head`, for the start's wallet line: none when they cannot be read. */
async function recentSlashes (client: ChainClient, address: string, head: number, signal?: AbortSignal): Promise<NodeSlash[]> {
  return await client.nodeSlashes(address, { fromBlock: Math.max(client.deployment.blockNumber ?? 0, head - SLASH_LOOKBACK_BLOCKS), signal })
    .catch((err: Error) => {
      if (err.name === 'AbortError') throw err
      log('reading the slashes of %s failed: %e', address, err)
      return []
    })
}

/** @throws NoPeerReachableError when bootstrap peers are given and none is connected within `timeoutMs` */
async function requireAPeer (node: JobmeshNode, bootstrap: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<void> {
  if (bootstrap.length === 0 || await connectedWithin(node, timeoutMs, signal)) return
  throw new NoPeerReachableError(`none of the bootstrap peers answered within ${Math.round(timeoutMs / 1000)} s (${bootstrap.join(', ')}): ` +
    'the node was not registered or resumed, since a verifier drawn with no peer to fetch the job from is slashed; is the network running, ' +
    'and is --bootstrap right? (jobmesh devnet prints JOBMESH_BOOTSTRAP)')
}
