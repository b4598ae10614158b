import { pollUntil } from '@jobmesh/contracts'
import { MemoryDatastore } from 'datastore-core'
import { describe, expect, it } from 'vitest'
import { SpecUnavailableError, datastoreJournal } from '../../src/settlement/index.js'
import { fakeJob, submitFake } from './fake-submission.js'
import { journaledSettlements } from './journaled-settlement.js'
import type { DutyJournal, Settlement } from '../../src/settlement/index.js'

const STAKE = 10n ** 18n
const FEE = 10n ** 15n

// A finalization that gave up on its retries (here: a spec nobody serves) stays journaled for the next start. Once the
// chain shows the job submitted by another node, or over, it is not owed any more: a stop must not list it among the
// duties "the chain's deadlines run" against (docs/settlement.md, Restarts; seen by a user: a stop listed "its
// finalization" of a job released minutes before).
describe('a journaled finalization of a job that another node submitted, or that ended on chain', () => {
  const bench = journaledSettlements(4, STAKE)

  /** A started settlement of `bench.chains[1]` whose finalization of `jobId` gave up (its duty kept in the journal). */
  const givenUp = async (jobId: string): Promise<{ settlement: Settlement, journal: DutyJournal }> => {
    const journal = datastoreJournal(new MemoryDatastore())
    const s = await bench.start(bench.chains[1], journal, { pollMs: 50, finalizeTimeoutMs: 200, finalizeRetryMs: 50 },
      { loadSpec: async () => { throw new SpecUnavailableError('no spec in this test') } })
    await expect(s.onJobComplete(jobId)).rejects.toMatchObject({ name: 'SpecUnavailableError' })
    // a failure a retry may fix: kept for the next start
    expect(await s.duties()).toEqual([{ kind: 'finalize', jobId }])
    return { settlement: s, journal }
  }

  it('is dropped once another node\'s submission stands', async () => {
    const jobId = await fakeJob(bench.chains[0], { tag: 'submitted-elsewhere', fee: FEE })
    const { settlement: s, journal } = await givenUp(jobId)
    await submitFake(bench.chains[2], jobId, 'submitted-elsewhere')
    await pollUntil(async () => (await s.duties()).length === 0 ? true : undefined, { pollMs: 50, timeoutMs: 15_000, what: 'the finalization dropped' })
    expect(await journal.list('finalize/')).toEqual([])
  }, 60_000)

  it('is dropped once the job ended on chain (refunded)', async () => {
    const jobId = await fakeJob(bench.chains[0], { tag: 'refunded', fee: FEE })
    const { settlement: s } = await givenUp(jobId)
    await bench.chains[0].provider.send('evm_increaseTime', [86_401])
    await bench.chains[0].refund(jobId)
    await pollUntil(async () => (await s.duties()).length === 0 ? true : undefined, { pollMs: 50, timeoutMs: 15_000, what: 'the finalization dropped' })
  }, 60_000)
})
