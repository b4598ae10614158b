import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { startChain } from '@jobmesh/testkit/anvil'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { pollUntil } from '@jobmesh/contracts'
import { RESULTS_MAP } from '../../src/coord/constants.js'
import { resultTable } from '../../src/coord/results.js'
import { recordSigner, recordVerifier } from '../../src/coord/signing.js'
import { jobDocName, macroDocName } from '../../src/crdt/names.js'
import { createWasmExecutor } from '../../src/executor/index.js'
import { createNode } from '../../src/node/index.js'
import { computeJobId, encodeJobSpec, jobTree, parseJobSpec, sliceJob, workTag } from '../../src/protocol/index.js'
import { createSettlement, datastoreJournal, ensureSeedCommitted } from '../../src/settlement/index.js'
import { MemoryDatastore } from 'datastore-core'
import { RERUN_TIMEOUT_MS } from '../../src/settlement/constants.js'
import { stayInDraw } from '../../src/settlement/stay-in-draw.js'
import { publishProfile } from '../../src/jobs/index.js'
import { wasmMicroJobExecutor } from '../../src/executor/index.js'
import { createContentStore } from '../../src/storage/index.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { MicroJobExecutor, WasmExecutor } from '../../src/executor/index.js'
import type { ContentStore } from '../../src/storage/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { DutyJournal, Settlement, SettlementDocs } from '../../src/settlement/index.js'
import type { OwnPause } from '../../src/settlement/stay-in-draw.js'
import type { TestChain } from '@jobmesh/testkit/anvil'
import type { Ed25519PrivateKey } from '@libp2p/interface'

const WASM = fileURLToPath(new URL('../../../../examples/build/wordcount.wasm', import.meta.url))
const STAKE = 10n ** 17n
const FEE = 10n ** 15n

interface Peer { chain: ChainClient, key: Ed25519PrivateKey, settlement?: Settlement }

describe('settlement end to end on anvil', () => {
  let chain: TestChain
  let node: JobmeshNode
  let executor: WasmExecutor
  let peers: Peer[]
  let rerunLimits: Array<number | undefined>
  let cleanups: Array<() => Promise<void>>

  beforeEach(async () => {
    rerunLimits = []
    cleanups = []
    // commit and reveal windows of 50 blocks, 5 s each: room for a loaded CI machine
    chain = await startChain({ accounts: 7, blockTime: 0.1, deploy: { escrow: { commitWindow: 50, revealWindow: 50 } } })
    node = await createNode()
    executor = createWasmExecutor({ concurrency: 1 })
    peers = []
  })
  afterEach(async () => {
    await Promise.all(cleanups.map(async c => { await c() }))
    await Promise.all(peers.map(async p => p.settlement?.stop()))
    await executor.stop()
    await node.stop()
    await chain.stop()
  })

  interface Prepared { jobId: string, docs: SettlementDocs, honest: MicroJobExecutor, fromBlock: number }

  /**
   * Five peers (accounts 1-5; the first `registered` of them staked in the registry), peer 0 submits and processes
   * MacroJob 0, peer 1 processes MacroJob 1; the job's results are written straight into the job doc.
   */
  async function prepare ({ cheat = false, k = 3, registered = 5 }: { cheat?: boolean, k?: number, registered?: number }): Promise<Prepared> {
    const store = createContentStore({ helia: node.helia })
    const docsMap = new Map<string, Y.Doc>()
    const docs: SettlementDocs = {
      open: async (name) => {
        let d = docsMap.get(name)
        if (d == null) { d = new Y.Doc(); docsMap.set(name, d) }
        return d
      }
    }
    // five peers: 1 submits (and processes MacroJob 0), 2 processes MacroJob 1, 2..5 may be drawn as verifiers
    for (let i = 1; i <= 5; i++) {
      const peer: Peer = { chain: chain.clients[i], key: await generateKeyPair('Ed25519') }
      peers.push(peer)
      if (i <= registered) await register(peer)
    }
    const [submitter, processor] = peers
    for (const p of [submitter, processor]) {
      await publishProfile({ docs, privateKey: p.key }, { address: await p.chain.address(), gpuModel: 'cpu', vramGb: 1 })
    }

    // the job: word count over 1 200 bytes, 2 MacroJobs x 3 MicroJobs x 2 blocks of 100 bytes
    const creator = chain.clients[0]
    peers.push({ chain: creator, key: await generateKeyPair('Ed25519') })
    const codeCid = await store.addBytes(new Uint8Array(await readFile(WASM)))
    const dataCid = await store.addBytes(new TextEncoder().encode('the quick brown fox jumps over the lazy dog '.repeat(28).slice(0, 1200)))
    const head = await creator.provider.getBlock('latest')
    const deadlineSec = Number(head?.timestamp ?? 0) + 86_400
    const spec = parseJobSpec({
      creator: await creator.address(), codeUri: `ipfs://${codeCid}`, dataUri: `ipfs://${dataCid}`, blockSize: 100, blockCount: 12,
      slicing: { macroJobs: 2, microJobsPerMacro: 3, blocksPerMicro: 2 }, seed: 42n, price: FEE,
      estimate: { secondsPerMicroJob: 1 }, verifiers: 3, deadline: deadlineSec * 1000
    })
    const specCid = await store.addBytes(encodeJobSpec(spec))
    const jobId = computeJobId(spec.creator, specCid, 1n)
    const slicing = sliceJob(spec, jobId)
    const created = await creator.createJob({
      specCid, nonce: 1n, jobRoot: jobTree(slicing.microJobs).root, seed: spec.seed, macroJobs: 2, microJobsPerMacro: 3,
      minVramGb: 0, k, deadline: deadlineSec, secondsPerMicroJob: 1
    }, FEE)
    expect(created.jobId).toBe(jobId)
    // the other processor joined the job, as a peer does before its first MicroJob of it (job-joins.ts): only then may the
    // submission name it as a payee
    await processor.chain.joinJob(jobId)

    // results, produced directly with the executor; the submitter cheats on all of its MicroJobs when asked to
    const honest = wasmMicroJobExecutor({ store, executor })
    for (const d of slicing.microJobs) {
      const doc = await docs.open(macroDocName(jobDocName(jobId), d.macroIndex))
      const p = d.macroIndex === 0 ? submitter : processor
      const { output: real, digest } = await honest.run({ jobId, spec, ...d }, { signal: AbortSignal.timeout(30_000) })
      // a cheating processor's output: the real one with its first byte flipped
      const output = p === submitter && cheat ? real.map((b, i) => i === 0 ? b ^ 0xff : b) : real
      const { createHash } = await import('node:crypto')
      const signer = peerIdFromPrivateKey(p.key).toString()
      const table = resultTable({ signer: recordSigner(p.key, signer), verifier: recordVerifier() },
        doc.getMap<Uint8Array>(RESULTS_MAP), jobId)
      table.write(d.macroIndex, d.index, {
        term: 1,
        outputHash: new Uint8Array(createHash('sha256').update(output).digest()),
        size: output.length,
        outputCid: await store.addOutput(output),
        workTag: workTag(digest, signer)
      })
    }

    return { jobId, docs, honest, fromBlock: await creator.blockNumber() }
  }

  async function register (peer: Peer): Promise<void> {
    await peer.chain.ensureRegistered({ peerId: peerIdFromPrivateKey(peer.key).toString(), privateKey: peer.key, gpuModel: 'cpu', vramGb: 1, stake: STAKE })
  }

  async function startSettlement (peer: Peer, { docs, honest, fromBlock }: Prepared, pollMs = 50, unreachable?: Set<string>): Promise<Settlement> {
    const store = withUnreachable(createContentStore({ helia: node.helia }), unreachable)
    // every re-run's time limit, as the settlement asks it of the executor
    const recording: MicroJobExecutor = { run: async (task, options) => { rerunLimits.push(options.timeoutMs); return await honest.run(task, options) } }
    peer.settlement = createSettlement({ docs, chain: peer.chain, store, privateKey: peer.key, executor: recording }, { pollMs, phaseTimeoutMs: 60_000, fromBlock })
    await peer.settlement.start()
    return peer.settlement
  }

  /** `target` with some of its methods replaced (the test seams below); the others bound to it. */
  function overriding<T extends object> (target: T, overrides: Partial<Record<keyof T, unknown>>): T {
    return new Proxy(target, {
      get (t, key) {
        if (Object.hasOwn(overrides, key)) return overrides[key as keyof T]
        const value: unknown = Reflect.get(t, key)
        return typeof value === 'function' ? value.bind(t) : value
      }
    })
  }

  /**
   * `chain` whose transaction `method` waits for `gate` first (a test seam: another peer settles the round before this
   * one, or the submitter proves late).
   */
  function heldUntil (chain: ChainClient, method: 'settle' | 'proveSample', gate: Promise<unknown>): ChainClient {
    const send = chain[method].bind(chain) as (...args: unknown[]) => Promise<unknown>
    return overriding(chain, { [method]: async (...args: unknown[]) => { await gate; return await send(...args) } })
  }

  /** `chain` whose transactions `methods` never reach the chain (a test seam: a node gone, or without a manifest). */
  function refusing (chain: ChainClient, methods: Array<keyof ChainClient>, why: string): ChainClient {
    return overriding(chain, Object.fromEntries(methods.map(m => [m, async () => { throw new Error(`${String(m)}: ${why}`) }])))
  }

  /** `store` that cannot fetch the `ipfs://` URIs in `unreachable` (content whose only holder is gone). */
  function withUnreachable (store: ContentStore, unreachable: Set<string> | undefined): ContentStore {
    if (unreachable == null) return store
    return overriding(store, {
      fetch: async (...args: Parameters<ContentStore['fetch']>) => {
        if (unreachable.has(args[0])) throw new Error(`${args[0]}: no provider`)
        return await store.fetch(...args)
      }
    })
  }

  /**
   * `chain` that reads every commit deadline `blocks` early: its verifier stops waiting for a proof that many blocks
   * sooner. A proof held until the commits then has more than the commit margin (5 blocks, half a second at 0.1 s
   * blocks) to land before the escrow's real deadline, which a loaded machine can miss.
   */
  function deadlineEarly (chain: ChainClient, blocks: number): ChainClient {
    return overriding(chain, {
      job: async (...args: Parameters<ChainClient['job']>) => {
        const j = await chain.job(...args)
        return j.commitDeadline === 0 ? j : { ...j, commitDeadline: j.commitDeadline - blocks }
      }
    })
  }

  /** `chain` of a node that dies after `submitResults`: its later draws, proofs and settles never reach the chain. */
  function goneAfterSubmission (chain: ChainClient): ChainClient {
    return refusing(chain, ['selectVerifiers', 'proveSample', 'settle', 'closeSeeds'], 'this node is gone')
  }

  /**
   * The submitter (peer 0) finalizes the job and dies right after its submission; the four others run settlement,
   * unable to fetch the submitted manifest when `manifestGone`. Returns the job's outcome event on chain.
   */
  async function submitterGone (manifestGone: boolean): Promise<{ jobId: string, submitter: Peer, outcome: string }> {
    const prepared = await prepare({})
    const { jobId } = prepared
    const [submitter] = peers
    submitter.chain = goneAfterSubmission(submitter.chain)
    const unreachable = manifestGone ? new Set<string>() : undefined
    const own = await startSettlement(submitter, prepared)
    for (const p of peers.slice(1, 5)) await startSettlement(p, prepared, 50, unreachable)
    const submitted = pollUntil(async () => (await events('ResultsSubmitted', jobId))[0], { pollMs: 20, timeoutMs: 60_000, what: 'ResultsSubmitted' })
    const finalized = own.onJobComplete(jobId)
    // the verifiers fetch the manifest only after the late draw, many blocks after the submission
    unreachable?.add(`ipfs://${String((await submitted).args.manifestCid)}`)
    expect((await finalized).outcome).toBe('submitted')
    await own.stop()
    const outcome = await pollUntil(async () => (await events('JobReleased', jobId))[0] ?? (await events('JobRejected', jobId))[0],
      { pollMs: 100, timeoutMs: 150_000, what: 'JobReleased or JobRejected' })
    return { jobId, submitter, outcome: outcome.name }
  }

  async function events (name: string, jobId: string): Promise<Array<Awaited<ReturnType<ChainClient['findEvents']>>[number]>> {
    return await peers[0].chain.findEvents({ names: [name], topic1: jobId })
  }

  async function run (cheat: boolean): Promise<{ jobId: string, submitter: Peer, processor: Peer, verifiers: Peer[], settled: { released: boolean, rejected: boolean } }> {
    const prepared = await prepare({ cheat })
    const { jobId } = prepared
    const [submitter, processor] = peers
    for (const p of peers.slice(0, 5)) await startSettlement(p, prepared)
    const finalized = await submitter.settlement?.onJobComplete(jobId)
    expect(finalized?.outcome).toBe('submitted')
    // a second finalization (another peer) is a no-op
    expect((await processor.settlement?.onJobComplete(jobId))?.outcome).toBe('already')
    // the outcome is read from the chain: a round in which nobody revealed in time restarts, and after a rejection the
    // peers move on to the next round, so the peers' own 'settled' events are not a stable signal for the test
    const outcome = await pollUntil(async () => {
      const events = await submitter.chain.findEvents({ names: ['JobReleased', 'JobRejected'], topic1: jobId })
      return events[0]?.name
    }, { pollMs: 100, timeoutMs: 150_000, what: 'JobReleased or JobRejected' })
    const settled = { released: outcome === 'JobReleased', rejected: outcome === 'JobRejected' }
    const drawn = (await submitter.chain.findEvents({ names: ['VerifierAssigned'], topic1: jobId })).map(e => e.args.verifier)
    const verifiers: Peer[] = []
    for (const p of peers.slice(1, 5)) if (drawn.includes(await p.chain.address())) verifiers.push(p)
    expect(verifiers.length).toBeGreaterThanOrEqual(3)
    return { jobId, submitter, processor, verifiers, settled }
  }

  it('finalizes, draws verifiers, commits, reveals, proves, settles -> Released, and pays the claims', async () => {
    const { jobId, submitter, processor, verifiers, settled } = await run(false)
    expect(settled.released).toBe(true)
    expect(await submitter.chain.jobStatus(jobId)).toBe('Released')

    // both processors claimed their 3 leaves (the submitter right after settling, the other on JobReleased); each
    // leaf pays pool / 6 to the wallet of the PeerId that signed its result
    const pool = await submitter.chain.processorPool(jobId)
    const each = pool / 6n
    await pollUntil(async () => (await submitter.chain.job(jobId)).processorPaid === each * 6n ? true : undefined,
      { pollMs: 50, timeoutMs: 60_000, what: 'all leaves claimed' })
    const claims = await submitter.chain.findEvents({ names: ['PaymentClaimed'], topic1: jobId })
    expect(claims).toHaveLength(6)
    for (const c of claims) expect(c.args.amount).toBe(each)
    const byPayee = (a: string): number => claims.filter(c => String(c.args.payee) === a).length
    expect(byPayee(await submitter.chain.address())).toBe(3)
    expect(byPayee(await processor.chain.address())).toBe(3)
    // the submission named the other processor (Defences 28): its bond was locked with the submitter's, at the
    // submission's block, and given back at the release
    const bond = await submitter.chain.submissionBond(FEE)
    const [submittedAt] = await submitter.chain.findEvents({ names: ['ResultsSubmitted'], topic1: jobId })
    const [releasedAt] = await submitter.chain.findEvents({ names: ['JobReleased'], topic1: jobId })
    const locks = await submitter.chain.findEvents({ names: ['StakeLocked'], topic1: await processor.chain.address() })
    expect(locks.map(e => [e.blockNumber, e.args.amount, e.args.locked])).toEqual([
      [submittedAt.blockNumber, bond, bond], [releasedAt.blockNumber, 0n, 0n]
    ])
    // verifiers were paid into credits and withdrew them
    const paid = await submitter.chain.findEvents({ names: ['VerifierPaid'], topic1: jobId })
    expect(paid.length).toBeGreaterThan(0)
    for (const v of verifiers) {
      await pollUntil(async () => (await v.chain.credits()) === 0n ? true : undefined, { pollMs: 50, timeoutMs: 60_000, what: 'credit withdrawn' })
    }
    // the verifiers' re-runs had 1.5 x the processors' longest run, not the executor's 30 s
    expect(rerunLimits.length).toBeGreaterThan(0)
    expect(new Set(rerunLimits)).toEqual(new Set([RERUN_TIMEOUT_MS]))
  }, 180_000)

  it('a round restarted by a verifier\'s settle is drawn again by its submitter, not left waiting; the silent verifiers are paused, and one whose peer runs resumes itself', async () => {
    // four nodes staked: the submitter and the three it can draw (k = 3), two of which are silent (they have a seed,
    // so they can be drawn, and never reveal it); the submitter's settle is held until the round restarted, so the
    // live verifier settles it: one vote of three is no quorum, and the round restarts under the submitter's wait
    const prepared = await prepare({ k: 3, registered: 4 })
    const { jobId } = prepared
    const [submitter, live, silent, other, late] = peers
    for (const s of [silent, other]) await ensureSeedCommitted(s.chain, { pollMs: 50, phaseTimeoutMs: 60_000 })
    // one silent node's peer runs, but its verification never commits (a broken duty, a machine asleep through the
    // task): it watches for its own pauses as a peer does (the settlement's pause duty)
    const pauses: OwnPause[] = []
    const errors: Error[] = []
    const stopping = new AbortController()
    const resuming = stayInDraw(silent.chain, p => { pauses.push(p) }, { signal: stopping.signal, onError: (e) => { errors.push(e) }, fromBlock: prepared.fromBlock, pollMs: 50 })
    cleanups.push(async () => {
      stopping.abort()
      await resuming.catch(() => {})
    })
    const restarted = pollUntil(async () => (await events('VerificationRestarted', jobId))[0],
      { pollMs: 100, timeoutMs: 120_000, what: 'VerificationRestarted' })
    restarted.catch(() => {}) // awaited below; the held settle waits on it too
    submitter.chain = heldUntil(submitter.chain, 'settle', restarted)
    const own = await startSettlement(submitter, prepared, 1_000)
    await startSettlement(live, prepared)
    expect((await own.onJobComplete(jobId)).outcome).toBe('submitted')

    const restart = await restarted
    const settledBy = await submitter.chain.provider.getTransaction(restart.transactionHash)
    expect(settledBy?.from).toBe(await live.chain.address())
    // both were paused in the restart's transaction; the one whose peer runs resumed itself, the other stays out
    for (const s of [silent, other]) {
      expect((await events('NodePaused', await s.chain.address())).map(e => e.transactionHash)).toEqual([restart.transactionHash])
    }
    const resumed = await pollUntil(async () => pauses[0], { pollMs: 50, timeoutMs: 30_000, what: 'the running silent node\'s resume' })
    expect(resumed).toMatchObject({ cause: 'task', inARow: 1, outcome: 'resumed', pausedBlock: restart.blockNumber })
    expect((await silent.chain.nodeInfo()).paused).toBe(false)
    expect((await other.chain.nodeInfo()).paused).toBe(true)
    // the next round needs two more live nodes besides the submitter (a silent node's weight is 0 after its
    // timed-out task, resumed or not: it is not drawn again until a probe scores it): two join
    const later: Peer = { chain: chain.clients[6], key: await generateKeyPair('Ed25519') }
    for (const p of [late, later]) {
      await register(p)
      await startSettlement(p, prepared)
    }

    const released = await pollUntil(async () => (await events('JobReleased', jobId))[0],
      { pollMs: 100, timeoutMs: 120_000, what: 'JobReleased' })
    expect(released.blockNumber).toBeGreaterThan(restart.blockNumber)
    // the submitter drew the new round itself: nobody had to take the late-draw bounty from its bond
    expect(await events('DrawBountyPaid', jobId)).toHaveLength(0)
    const draws = await events('DrawEntropySet', jobId)
    expect(draws).toHaveLength(2)
    const redraw = await submitter.chain.provider.getTransaction(draws[1].transactionHash)
    expect(redraw?.from).toBe(await submitter.chain.address())
    expect(errors).toEqual([])
  }, 240_000)

  /**
   * The submitter's settlement with a journal (what `jobmesh start` keeps in the data dir), halted as `jobmesh start`
   * halts it at a stop (its first step), right after `method` is mined (a test seam for the moment of the Ctrl-C).
   */
  async function haltedAfter (method: 'commitResults' | 'submitResults', prepared: Prepared): Promise<{ settlement: Settlement, journal: DutyJournal, err: Error }> {
    const [submitter] = peers
    const journal = datastoreJournal(new MemoryDatastore())
    const holder: { settlement?: Settlement } = {}
    const send = submitter.chain[method].bind(submitter.chain) as (...args: unknown[]) => Promise<unknown>
    const chain = overriding(submitter.chain, { [method]: async (...args: unknown[]) => { const r = await send(...args); holder.settlement?.halt(); return r } })
    // a doc store reads its signal as the peer's does: a halted settlement opens no doc
    const docs: SettlementDocs = {
      ...prepared.docs,
      open: async (name, options) => { options?.signal?.throwIfAborted(); return await prepared.docs.open(name, options) }
    }
    const settlement = createSettlement({ docs, chain, store: createContentStore({ helia: node.helia }), privateKey: submitter.key, journal },
      { pollMs: 50, phaseTimeoutMs: 60_000, fromBlock: prepared.fromBlock })
    holder.settlement = settlement
    submitter.settlement = settlement
    await settlement.start()
    const err = await settlement.onJobComplete(prepared.jobId).then(() => new Error('finalized'), (e: unknown) => e as Error)
    return { settlement, journal, err }
  }

  it('a stop between the results commitment and their submission submits nothing: the finalization stays its duty, no draw is owed (a QA pass saw a stopping node submit, then pay the late-draw bounty)', async () => {
    const prepared = await prepare({})
    const { jobId } = prepared
    const { settlement, err } = await haltedAfter('commitResults', prepared)
    expect(err.name).toBe('AbortError')
    expect(await peers[0].chain.jobStatus(jobId)).toBe('Open')
    expect(await events('ResultsSubmitted', jobId)).toEqual([])
    // what `jobmesh start` prints at the stop: the finalization, which the job's other peers take over
    expect(await settlement.duties()).toEqual([{ kind: 'finalize', jobId: jobId.toLowerCase() }])
  }, 120_000)

  it('a stop right after the submission keeps the draw as the duty, not the finalization: the stop names what is at stake', async () => {
    const prepared = await prepare({})
    const { jobId } = prepared
    const { settlement, journal, err } = await haltedAfter('submitResults', prepared)
    expect(err.name).toBe('AbortError')
    expect(await peers[0].chain.jobStatus(jobId)).toBe('Submitted')
    expect((await journal.list('settle/')).map(e => e.key)).toEqual([`settle/${jobId.toLowerCase()}`])
    expect(await settlement.duties()).toEqual([{ kind: 'settle', jobId: jobId.toLowerCase() }])
  }, 120_000)

  it('a submitter gone right after its submission: a watcher draws late, a verifier proves the sample, the job is released', async () => {
    const { jobId, submitter, outcome } = await submitterGone(false)
    expect(outcome).toBe('JobReleased')
    expect(await events('DrawBountyPaid', jobId)).toHaveLength(1)
    const proofs = await events('SampleProven', jobId)
    expect(proofs).toHaveLength(1)
    const prover = (await submitter.chain.provider.getTransaction(proofs[0].transactionHash))?.from
    const drawn = (await events('VerifierAssigned', jobId)).map(e => String(e.args.verifier))
    expect(drawn).toContain(prover)
    expect(prover).not.toBe(await submitter.chain.address())
  }, 180_000)

  it('a submitter gone with its manifest: its verifiers settle the unproven round against it and are freed', async () => {
    const { jobId, submitter, outcome } = await submitterGone(true)
    expect(outcome).toBe('JobRejected')
    expect(await events('SampleProven', jobId)).toHaveLength(0)
    expect((await submitter.chain.nodeInfo()).stake).toBeLessThan(STAKE)
    const drawn = (await events('VerifierAssigned', jobId)).map(e => String(e.args.verifier))
    const verifiers: Peer[] = []
    for (const p of peers.slice(1, 5)) if (drawn.includes(await p.chain.address())) verifiers.push(p)
    expect(verifiers).toHaveLength(3)
    for (const v of verifiers) expect((await v.chain.nodeInfo()).busy).toBe(false)
  }, 180_000)

  it('a proof that lands after the verifiers committed on their own re-runs: they reveal against it, the job is released in that round', async () => {
    const prepared = await prepare({})
    const { jobId } = prepared
    const [submitter] = peers
    // the four others cannot prove, and read the commit deadline 25 blocks early (room for the proof after their commits
    // on a loaded machine); the submitter proves only once its three verifiers committed without a proof
    const committed = pollUntil(async () => (await events('VerificationCommitted', jobId)).length >= 3 ? true : undefined,
      { pollMs: 50, timeoutMs: 120_000, what: 'three commits' })
    committed.catch(() => {}) // awaited below; the held proof waits on it too
    submitter.chain = heldUntil(submitter.chain, 'proveSample', committed)
    const own = await startSettlement(submitter, prepared)
    for (const p of peers.slice(1, 5)) {
      p.chain = deadlineEarly(refusing(p.chain, ['proveSample'], 'no manifest here'), 25)
      await startSettlement(p, prepared)
    }
    expect((await own.onJobComplete(jobId)).outcome).toBe('submitted')
    await committed

    const outcome = await pollUntil(async () => (await events('JobReleased', jobId))[0] ?? (await events('JobRejected', jobId))[0] ??
      (await events('VerificationRestarted', jobId))[0], { pollMs: 100, timeoutMs: 150_000, what: 'the round settled' })
    expect(outcome.name).toBe('JobReleased')
    const [proof] = await events('SampleProven', jobId)
    const commits = await events('VerificationCommitted', jobId)
    expect(proof.blockNumber).toBeGreaterThan(Math.max(...commits.map(c => c.blockNumber)))
    const reveals = await events('VerificationRevealed', jobId)
    expect(reveals.map(r => String(r.args.verifier)).sort()).toEqual(commits.map(c => String(c.args.verifier)).sort())
    expect(await events('VerifierPenalised', jobId)).toHaveLength(0)
  }, 180_000)

  it('rejects a cheating submitter and slashes its stake', async () => {
    const { jobId, submitter, settled } = await run(true)
    expect(settled.rejected).toBe(true)
    const job = await submitter.chain.job(jobId)
    expect(job.status).toBe('Open')
    expect(job.rejections).toBe(1)
    expect((await submitter.chain.nodeInfo()).stake).toBeLessThan(STAKE)
    const rejected = await submitter.chain.findEvents({ names: ['JobRejected'], topic1: jobId })
    expect(rejected).toHaveLength(1)
  }, 180_000)
})
