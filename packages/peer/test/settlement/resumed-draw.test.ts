import { pollUntil } from '@jobmesh/contracts'
import { MemoryDatastore } from 'datastore-core'
import { describe, expect, it } from 'vitest'
import { datastoreJournal } from '../../src/settlement/index.js'
import { fakeSubmission } from './fake-submission.js'
import { journaledSettlements } from './journaled-settlement.js'

const STAKE = 10n ** 18n
const FEE = 10n ** 15n

describe('a submitter stopped between its submission and its draw', () => {
  const bench = journaledSettlements(6, STAKE)

  it('draws at its next start from its journal, before another node takes the late-draw bounty out of its stake', async () => {
    const submitter = bench.chains[1]
    const jobId = await fakeSubmission(bench.chains[0], submitter, { tag: 'resumed-draw', fee: FEE })
    const stake0 = (await submitter.nodeInfo()).stake
    // what the journal holds after a stop that came between `submitResults` and `selectVerifiers`
    const journal = datastoreJournal(new MemoryDatastore())
    await journal.put(`settle/${jobId}`, '{}')
    const settlement = await bench.start(submitter, journal, { pollMs: 50, phaseTimeoutMs: 30_000 })
    // what a stop now would keep for the next start (jobmesh start prints it)
    expect(await settlement.duties()).toEqual([{ kind: 'settle', jobId }])
    const drawn = await pollUntil(async () => (await submitter.job(jobId)).drawn ? true : undefined, { pollMs: 100, timeoutMs: 30_000, what: 'the resumed draw' })
    expect(drawn).toBe(true)
    // drawn by the submitter itself: no bounty, the stake whole
    expect(await submitter.findEvents({ names: ['DrawBountyPaid'], topic1: jobId })).toEqual([])
    expect((await submitter.nodeInfo()).stake).toBe(stake0)
    // the round is not over (nobody verifies here): a stop keeps the duty for the next start
    await bench.stop()
    expect((await journal.list('settle/')).map(e => e.key)).toEqual([`settle/${jobId}`])
  }, 60_000)

  it('a journaled draw of a submission that is not this node\'s (another wallet on the data dir, a later round) is dropped, not drawn', async () => {
    const jobId = await fakeSubmission(bench.chains[0], bench.chains[2], { tag: 'not-mine', fee: FEE })
    const journal = datastoreJournal(new MemoryDatastore())
    await journal.put(`settle/${jobId}`, '{}')
    await bench.start(bench.chains[1], journal, { pollMs: 50, phaseTimeoutMs: 30_000 })
    await pollUntil(async () => (await journal.list('settle/')).length === 0 ? true : undefined, { pollMs: 100, timeoutMs: 30_000, what: 'the duty dropped' })
    expect((await bench.chains[1].job(jobId)).drawn).toBe(false)
  }, 60_000)
})
