import { generateKeyPair } from '@libp2p/crypto/keys'
import { pollUntil } from '@jobmesh/contracts'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { MemoryDatastore } from 'datastore-core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createNode } from '../../src/node/index.js'
import { SpecUnavailableError, createSettlement, datastoreJournal } from '../../src/settlement/index.js'
import { createContentStore } from '../../src/storage/index.js'
import { fakeJob, submitFake } from './fake-submission.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { JobmeshNode } from '../../src/node/index.js'
import type { DutyJournal, Settlement } from '../../src/settlement/index.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

const STAKE = 10n ** 18n
const FEE = 10n ** 15n

// A finalization that gave up on its retries (here: a spec nobody serves) stays journaled for the next start. Once the
// chain shows the job submitted by another node, or over, it is not owed any more: a stop must not list it among the
// duties "the chain's deadlines run" against (docs/settlement.md, Restarts; seen by a user: a stop listed "its
// finalization" of a job released minutes before).
describe('a journaled finalization of a job that another node submitted, or that ended on chain', () => {
  let chain: TestChain
  let chains: ChainClient[]
  let node: JobmeshNode
  let settlement: Settlement | undefined

  beforeEach(async () => {
    chain = await startChain({ accounts: 4, blockTime: 0.1 })
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

  /** A started settlement of `chains[1]` whose finalization of `jobId` gave up (its duty kept in the journal). */
  const givenUp = async (jobId: string): Promise<{ settlement: Settlement, journal: DutyJournal }> => {
    const journal = datastoreJournal(new MemoryDatastore())
    const s = createSettlement({
      docs: { open: async () => new Y.Doc() },
      chain: chains[1],
      store: createContentStore({ helia: node.helia }),
      privateKey: await generateKeyPair('Ed25519'),
      journal,
      loadSpec: async () => { throw new SpecUnavailableError('no spec in this test') }
    }, { pollMs: 50, finalizeTimeoutMs: 200, finalizeRetryMs: 50 })
    settlement = s
    await s.start()
    await expect(s.onJobComplete(jobId)).rejects.toMatchObject({ name: 'SpecUnavailableError' })
    // a failure a retry may fix: kept for the next start
    expect(await s.duties()).toEqual([{ kind: 'finalize', jobId }])
    return { settlement: s, journal }
  }

  it('is dropped once another node\'s submission stands', async () => {
    const jobId = await fakeJob(chains[0], { tag: 'submitted-elsewhere', fee: FEE })
    const { settlement: s, journal } = await givenUp(jobId)
    await submitFake(chains[2], jobId, 'submitted-elsewhere')
    await pollUntil(async () => (await s.duties()).length === 0 ? true : undefined, { pollMs: 50, timeoutMs: 15_000, what: 'the finalization dropped' })
    expect(await journal.list('finalize/')).toEqual([])
  }, 60_000)

  it('is dropped once the job ended on chain (refunded)', async () => {
    const jobId = await fakeJob(chains[0], { tag: 'refunded', fee: FEE })
    const { settlement: s } = await givenUp(jobId)
    await chains[0].provider.send('evm_increaseTime', [86_401])
    await chains[0].refund(jobId)
    await pollUntil(async () => (await s.duties()).length === 0 ? true : undefined, { pollMs: 50, timeoutMs: 15_000, what: 'the finalization dropped' })
  }, 60_000)
})
