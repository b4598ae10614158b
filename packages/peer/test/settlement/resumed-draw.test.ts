import { generateKeyPair } from '@libp2p/crypto/keys'
import { pollUntil } from '@jobmesh/contracts'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { MemoryDatastore } from 'datastore-core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createNode } from '../../src/node/index.js'
import { createSettlement, datastoreJournal } from '../../src/settlement/index.js'
import { createContentStore } from '../../src/storage/index.js'
import { fakeSubmission } from './fake-submission.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { JobmeshNode } from '../../src/node/index.js'
import type { Settlement } from '../../src/settlement/index.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

const STAKE = 10n ** 18n
const FEE = 10n ** 15n

describe('a submitter stopped between its submission and its draw', () => {
  let chain: TestChain
  let chains: ChainClient[]
  let node: JobmeshNode
  let settlement: Settlement | undefined

  beforeEach(async () => {
    chain = await startChain({ accounts: 6, blockTime: 0.1 })
    chains = chain.clients
    await registerNodes(chains.slice(1), STAKE)
    node = await createNode()
  })

  afterEach(async () => {
    await settlement?.stop()
    settlement = undefined
    await node.stop()
    await chain.stop()
  })

  it('draws at its next start from its journal, before another node takes the late-draw bounty out of its stake', async () => {
    const submitter = chains[1]
    const jobId = await fakeSubmission(chains[0], submitter, { tag: 'resumed-draw', fee: FEE })
    const stake0 = (await submitter.nodeInfo()).stake
    // what the journal holds after a stop that came between `submitResults` and `selectVerifiers`
    const journal = datastoreJournal(new MemoryDatastore())
    await journal.put(`settle/${jobId}`, '{}')
    const store = createContentStore({ helia: node.helia })
    settlement = createSettlement({ docs: { open: async () => new Y.Doc() }, chain: submitter, store, privateKey: await generateKeyPair('Ed25519'), journal },
      { pollMs: 50, phaseTimeoutMs: 30_000 })
    await settlement.start()
    // what a stop now would keep for the next start (jobmesh start prints it)
    expect(await settlement.duties()).toEqual([{ kind: 'settle', jobId }])
    const drawn = await pollUntil(async () => (await submitter.job(jobId)).drawn ? true : undefined, { pollMs: 100, timeoutMs: 30_000, what: 'the resumed draw' })
    expect(drawn).toBe(true)
    // drawn by the submitter itself: no bounty, the stake whole
    expect(await submitter.findEvents({ names: ['DrawBountyPaid'], topic1: jobId })).toEqual([])
    expect((await submitter.nodeInfo()).stake).toBe(stake0)
    // the round is not over (nobody verifies here): a stop keeps the duty for the next start
    await settlement.stop()
    settlement = undefined
    expect((await journal.list('settle/')).map(e => e.key)).toEqual([`settle/${jobId}`])
  }, 60_000)

  it('a journaled draw of a submission that is not this node\'s (another wallet on the data dir, a later round) is dropped, not drawn', async () => {
    const jobId = await fakeSubmission(chains[0], chains[2], { tag: 'not-mine', fee: FEE })
    const journal = datastoreJournal(new MemoryDatastore())
    await journal.put(`settle/${jobId}`, '{}')
    const store = createContentStore({ helia: node.helia })
    settlement = createSettlement({ docs: { open: async () => new Y.Doc() }, chain: chains[1], store, privateKey: await generateKeyPair('Ed25519'), journal },
      { pollMs: 50, phaseTimeoutMs: 30_000 })
    await settlement.start()
    await pollUntil(async () => (await journal.list('settle/')).length === 0 ? true : undefined, { pollMs: 100, timeoutMs: 30_000, what: 'the duty dropped' })
    expect((await chains[1].job(jobId)).drawn).toBe(false)
  }, 60_000)
})
