import { afterEach, describe, expect, it } from 'vitest'
import { startPeers, stopPeers, testExecutor, testJob, waitFor } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
})

/** What each peer did, in order: `join <jobId>` when its join resolved, `start <jobId>` per MicroJob started. */
type Log = string[][]

/**
 * `n` peers dialled to each other (in `peers`, as each starts, so afterEach stops them), each with a `joinJob` that
 * takes 300 ms (a block's wait) and logs when it resolves.
 */
async function joiningPeers (n: number, workMs: number, log: Log): Promise<void> {
  for (let i = 0; i < n; i++) {
    const [peer] = await startPeers(1, {
      executor: testExecutor({ workMs }),
      joinJob: async (jobId) => {
        await new Promise(resolve => setTimeout(resolve, 300))
        log[i].push(`join ${jobId}`)
      }
    })
    peer.processor.addEventListener('microjob:start', (evt) => { log[i].push(`start ${evt.detail.jobId}`) })
    const others = [...peers]
    peers.push(peer)
    for (const other of others) await peer.node.libp2p.dial(other.node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
  }
}

describe('processor: the join on chain at the first queue turn (ProcessorInit.joinJob)', () => {
  it('a peer joins a job before its first MicroJob of it runs, and a peer that finds nothing open in it does not join', async () => {
    const log: Log = [[], [], []]
    await joiningPeers(3, 1_500, log)
    // one MicroJob: one peer runs it, the others find nothing open for them
    const job = testJob(1, 1)
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await Promise.all(peers.map(async p => { await p.processor.start() }))
    await waitFor(() => peers.every(p => p.processor.knownJobs().find(j => j.jobId === job.jobId)?.state === 'complete'),
      { timeoutMs: 20_000, what: 'the job complete on every peer' })
    const runners = log.map((l, i) => l.some(e => e.startsWith('start')) ? i : -1).filter(i => i >= 0)
    expect(runners).toHaveLength(1)
    for (const [i, l] of log.entries()) {
      // the runner's join resolved before its MicroJob started; the others never joined
      expect(l).toEqual(runners.includes(i) ? [`join ${job.jobId}`, `start ${job.jobId}`] : [])
    }
  }, 60_000)

  it('joins each round it works on: a rejected round\'s join is no consent to the next (the escrow asks one per round)', async () => {
    // in order: `join <round>` as each join resolves, `start` per MicroJob started
    const log: string[] = []
    let round = 0
    const job = testJob(1, 40)
    peers = await startPeers(1, {
      executor: testExecutor({ workMs: 100 }),
      joinJob: async (_jobId, r) => { log.push(`join ${r}`) },
      roundOf: () => round
    })
    peers[0].processor.addEventListener('microjob:start', () => { log.push('start') })
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await peers[0].processor.start()
    await waitFor(() => log.includes('start'), { timeoutMs: 20_000, what: 'a MicroJob of round 0 started' })
    expect(log[0]).toBe('join 0')
    // round 0 rejected on chain: the peer leaves it, and joins round 1 before its first MicroJob there
    round = 1
    peers[0].processor.wake()
    await waitFor(() => log.includes('join 1') && log.lastIndexOf('start') > log.indexOf('join 1'), { timeoutMs: 20_000, what: 'a MicroJob of round 1 started' })
    expect(log.filter(e => e.startsWith('join'))).toEqual(['join 0', 'join 1'])
  }, 30_000)

  it('joins each job it works on, though two jobs share one spec (their CID)', async () => {
    const joined: string[] = []
    peers = await startPeers(1, {
      executor: testExecutor({ workMs: 50 }),
      joinJob: async (jobId) => { joined.push(jobId) }
    })
    // the test kit's jobs all name one spec CID, as two submissions of one spec would
    const jobs = [testJob(1, 2), testJob(1, 2)]
    expect(jobs[0].specCid).toBe(jobs[1].specCid)
    const started = new Set<string>()
    peers[0].processor.addEventListener('microjob:start', (evt) => { started.add(evt.detail.jobId) })
    for (const job of jobs) await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await peers[0].processor.start()
    await waitFor(() => started.size === 2, { timeoutMs: 20_000, what: 'both jobs worked on' })
    expect([...joined].sort()).toEqual(jobs.map(j => j.jobId).sort())
  }, 30_000)
})
