import { afterEach, describe, expect, it } from 'vitest'
import { startPeers, stopPeers, testExecutor, testJob, waitFor } from '@jobmesh/testkit'
import { peerJobKey } from '../../src/processor/start-order.js'
import type { TestJob, TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
})

interface Run { peer: number, jobId: string, key: string, kind: 'start' | 'done', at: number }

/** MicroJobs with a result written by some peer. */
function finished (runs: Run[]): number {
  return new Set(runs.filter(r => r.kind === 'done').map(r => r.key)).size
}

/** MicroJobs started more than once. */
function runTwice (runs: Run[]): string[] {
  const starts = runs.filter(r => r.kind === 'start').map(r => r.key)
  return starts.filter((k, i) => starts.indexOf(k) !== i)
}

/** Every MicroJob start and end on the peers, in order. */
function record (list: TestPeer[]): Run[] {
  const runs: Run[] = []
  for (const [peer, p] of list.entries()) {
    const key = (d: { jobId: string, macroIndex: number, index: number }): string => `${d.jobId}/${d.macroIndex}/${d.index}`
    p.processor.addEventListener('microjob:start', (evt) => { runs.push({ peer, jobId: evt.detail.jobId, key: key(evt.detail), kind: 'start', at: Date.now() }) })
    p.processor.addEventListener('microjob:done', (evt) => { runs.push({ peer, jobId: evt.detail.jobId, key: key(evt.detail), kind: 'done', at: Date.now() }) })
  }
  return runs
}

async function announce (peer: TestPeer, jobs: TestJob[]): Promise<void> {
  for (const job of jobs) await peer.processor.announceJob(job.spec, job.jobId, job.specCid)
}

describe('processor: work spread over jobs', () => {
  it('a peer with nothing open in a job\'s tail takes up another job before the tail ends', async () => {
    peers = await startPeers(3, { executor: testExecutor({ workMs: 2_500 }) })
    // the same price for fewer MicroJobs: every peer takes the short job first, where one of them finds nothing open
    const short = testJob(1, 2)
    const long = testJob(1, 6)
    await announce(peers[0], [short, long])
    const runs = record(peers)
    await Promise.all(peers.map(async p => { await p.processor.start() }))
    await waitFor(() => finished(runs) === 8, { timeoutMs: 60_000, what: 'both jobs run' })
    const shortEnd = Math.max(...runs.filter(r => r.jobId === short.jobId && r.kind === 'done').map(r => r.at))
    const longStart = Math.min(...runs.filter(r => r.jobId === long.jobId && r.kind === 'start').map(r => r.at))
    expect(runs.find(r => r.kind === 'start')?.jobId).toBe(short.jobId)
    // before: the idle peer waited on the short job until it ended, then all three took up the long one
    expect(longStart).toBeLessThan(shortEnd)
    // the first turn locks both short MicroJobs for one peer, and the second waits 2.5 s behind the first, longer than
    // the 3 s lease less its renewal: its lease is kept while it waits (held-leases.ts), so nobody runs it again
    expect(runTwice(runs)).toEqual([])
  }, 90_000)

  it('peers take up equally paid jobs in the order of their own key in each, not all the same job', async () => {
    peers = await startPeers(2, { executor: testExecutor({ workMs: 200 }) })
    const ids = peers.map(p => p.id)
    // two jobs the two peers' keys order differently (a new pair until they do)
    let jobs = [testJob(1, 4), testJob(1, 4)]
    const first = (peer: string): string => peerJobKey(jobs[0].jobId, peer) < peerJobKey(jobs[1].jobId, peer) ? jobs[0].jobId : jobs[1].jobId
    while (first(ids[0]) === first(ids[1])) jobs = [testJob(1, 4), testJob(1, 4)]
    await announce(peers[0], jobs)
    const runs = record(peers)
    await Promise.all(peers.map(async p => { await p.processor.start() }))
    await waitFor(() => finished(runs) === 8, { timeoutMs: 30_000, what: 'both jobs run' })
    for (const [i, id] of ids.entries()) {
      expect(runs.find(r => r.peer === i && r.kind === 'start')?.jobId).toBe(first(id))
    }
    expect(runTwice(runs)).toEqual([])
  }, 60_000)
})
