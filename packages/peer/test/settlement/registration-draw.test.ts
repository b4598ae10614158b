import { pollUntil } from '@jobmesh/contracts'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createWasmExecutor, wasmMicroJobExecutor } from '../../src/executor/index.js'
import { createNode } from '../../src/node/index.js'
import { createSettlement, ensureSeedCommitted } from '../../src/settlement/index.js'
import { createContentStore } from '../../src/storage/index.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { WasmExecutor } from '../../src/executor/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { Settlement } from '../../src/settlement/index.js'
import { fakeSubmission } from './fake-submission.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

const STAKE = 10n ** 17n
const FEE = 10n ** 15n
const OPTIONS = { pollMs: 50, phaseTimeoutMs: 30_000 }

describe('a node drawn for a waiting job in the block that registers it', () => {
  let chain: TestChain
  let chains: ChainClient[]
  let node: JobmeshNode
  let executor: WasmExecutor
  let settlement: Settlement | undefined

  beforeEach(async () => {
    chain = await startChain({ accounts: 5, blockTime: 0.1 })
    chains = chain.clients
    node = await createNode()
    executor = createWasmExecutor({ concurrency: 1 })
  })

  afterEach(async () => {
    await settlement?.stop()
    settlement = undefined
    await executor.stop()
    await node.stop()
    await chain.stop()
  })

  /** A job of account 0 (k = 3) submitted by account 1; accounts 2 and 3 are its only idle verifiers, so it waits for another. */
  async function waitingForAVerifier (): Promise<string> {
    await registerNodes(chains.slice(1, 4), STAKE)
    const submitter = chains[1]
    const jobId = await fakeSubmission(chains[0], submitter, { tag: 'registration-draw', fee: FEE })
    const { submitBlock } = await submitter.job(jobId)
    await pollUntil(async () => await submitter.blockNumber() >= submitBlock + 2 ? true : undefined, { ...OPTIONS, timeoutMs: 30_000, what: 'the entropy block' })
    await submitter.selectVerifiers(jobId, OPTIONS)
    // all k are drawn at once: with two idle nodes the job waits in the verification queue
    const queued = await submitter.job(jobId)
    expect(queued.drawn).toBe(true)
    expect(queued.assigned).toBe(0)
    return jobId
  }

  it('sees the assignment and reveals its seed for it, though the draw came before its settlement started', async () => {
    const jobId = await waitingForAVerifier()
    const late = chains[4]
    const key = await generateKeyPair('Ed25519')
    // as a peer starts on a chain: the head first, then the seed, then the registration (which draws it)
    const since = await late.blockNumber()
    await ensureSeedCommitted(late, OPTIONS)
    await late.ensureRegistered({ peerId: peerIdFromPrivateKey(key).toString(), privateKey: key, gpuModel: 'cpu', vramGb: 1, stake: STAKE })
    const me = await late.address()
    const [assigned] = await late.findEvents({ names: ['VerifierAssigned'], topic1: jobId, topic2: me })
    expect(assigned).toBeDefined()
    const registered = await late.findEvents({ names: ['NodeRegistered'], topic1: me })
    expect(assigned.blockNumber).toBe(registered[0].blockNumber)
    // the draw is in the past when the settlement starts: only `since` brings it back
    await pollUntil(async () => await late.blockNumber() > assigned.blockNumber ? true : undefined, { ...OPTIONS, timeoutMs: 30_000, what: 'a later block' })

    const store = createContentStore({ helia: node.helia })
    const docs = { open: async () => new Y.Doc() }
    settlement = createSettlement({ docs, chain: late, store, privateKey: key, executor: wasmMicroJobExecutor({ store, executor }) }, { pollMs: 50 })
    await settlement.start({ since })
    const revealed = await pollUntil(async () => {
      const events = await late.findEvents({ names: ['SeedRevealed'], topic1: jobId, topic2: me })
      return events.length > 0 ? events : undefined
    }, { pollMs: 100, timeoutMs: 30_000, what: 'the late node\'s seed revealed for the job' })
    expect(revealed).toHaveLength(1)
    expect(await late.findEvents({ names: ['SeedMissed'], topic1: jobId, topic2: me })).toEqual([])
  }, 90_000)
})
