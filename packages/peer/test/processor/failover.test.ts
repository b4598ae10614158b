import { afterEach, describe, expect, it } from 'vitest'
import {
  MICRO_MAP, RESULTS_MAP, countStates, countingResult, jobsTopic, leases as createLeases, microKey, microScope,
  recordSigner, recordVerifier, resultTable
} from '../../src/coord/index.js'
import { jobDocName, macroDocName } from '../../src/crdt/index.js'
import type { QueueState } from '../../src/coord/index.js'
import type * as Y from 'yjs'
import { heldDone, startPeers, stopPeers, testExecutor, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
})

interface RoomView { state?: QueueState, isOwner: boolean }
interface ContextView { doc: Y.Doc, rooms: Map<number, RoomView> }

function context (p: TestPeer, jobId: string): ContextView | undefined {
  return (p.processor as unknown as { contexts: Map<string, ContextView> }).contexts.get(jobId)
}

describe('processor failover', () => {
  it('the queue owner crashes while it holds the queue: another peer takes over, no MicroJob lost', async () => {
    peers = await startPeers(4, { executor: testExecutor({ workMs: 20 }), maxBatch: 2 })
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    const job = testJob(1, 48)
    const runs = new Map<string, number>()
    let victim: { peer: TestPeer, epoch: number, open: number } | undefined
    let crash: Promise<void> | undefined
    // the latest queue epoch each peer saw: read from the events, since a peer leaves the room once its turns come back empty
    const epochSeen = new Map<TestPeer, number>()
    for (const p of peers) {
      p.processor.addEventListener('ownership', (evt) => { epochSeen.set(p, Math.max(epochSeen.get(p) ?? 0, evt.detail.epoch)) })
      p.processor.addEventListener('microjob:done', (evt) => {
        const key = microKey(evt.detail.macroIndex, evt.detail.index)
        runs.set(key, (runs.get(key) ?? 0) + 1)
      })
      // the victim is whoever receives the queue once a quarter of the job is done: it crashes inside the
      // ownership hand-over, before it serves or hands the queue on, so the room can only move on by a failover
      p.processor.addEventListener('ownership', (evt) => {
        if (victim != null || runs.size < 12) return
        const state = context(p, job.jobId)?.rooms.get(evt.detail.macroIndex)?.state
        if (state == null || state.owner !== p.id || countStates(state.states).open === 0) return
        victim = { peer: p, epoch: evt.detail.epoch, open: countStates(state.states).open }
        p.stopped = true
        crash = (async () => {
          await p.processor.stop({ abrupt: true }) // closes its rooms synchronously: no snapshot, no handoff
          await p.node.libp2p.stop()
        })()
      })
    }
    const complete = new Map(peers.map(p => [p, new Promise<void>(resolve => {
      p.processor.addEventListener('job:complete', () => { resolve() })
    })]))
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => victim != null, { timeoutMs: 30_000, what: 'a peer to receive the queue after a quarter of the job' })
    await crash
    const killed = victim!.peer
    const survivors = peers.filter(p => p !== killed)
    // the victim held the queue with work left when it died
    expect(victim!.open).toBeGreaterThan(0)
    // every survivor completes the job (job:complete of the victim itself never comes)
    await Promise.all(survivors.map(async p => complete.get(p)))
    // another peer took the queue over through the MacroJob lease: a later epoch than the victim's
    expect(survivors.reduce((n, p) => n + p.processor.metrics.failovers, 0)).toBeGreaterThanOrEqual(1)
    expect(Math.max(...survivors.map(p => epochSeen.get(p) ?? 0))).toBeGreaterThan(victim!.epoch)
    // no MicroJob lost: each ran (at least once), and each has a synced result on every survivor
    expect(runs.size).toBe(48)
    for (const p of survivors) {
      await waitFor(() => heldDone(p.docs, job.jobId, 1).size === 48, { timeoutMs: 20_000, what: 'every result synced' })
    }
    // fencing: every MicroJob counts exactly one result, whatever stale-term duplicates exist (in the MacroJob's doc)
    const alive = survivors[0]
    const doc = alive.docs.get(macroDocName(jobDocName(job.jobId), 0))!
    const verifier = recordVerifier()
    const table = resultTable({ signer: recordSigner(alive.node.privateKey, alive.id), verifier }, doc.getMap<Uint8Array>(RESULTS_MAP), job.jobId)
    const micro = createLeases({ signer: recordSigner(alive.node.privateKey, alive.id), verifier }).table(doc.getMap<Uint8Array>(MICRO_MAP), microScope(job.jobId))
    let counted = 0
    for (let i = 0; i < 48; i++) {
      const all = table.list(0, i)
      const lease = micro.get(microKey(0, i))
      const counts = all.filter(r => r === countingResult(all, lease))
      expect(counts.length).toBe(1)
      counted += counts.length
    }
    expect(counted).toBe(48)
    await killed.docs.stop().catch(() => {})
    await killed.node.stop().catch(() => {})
  })

  it('an owner restarted under the same PeerId (it gossips, but lost the queue) does not hold the room hostage', async () => {
    peers = await startPeers(3, { executor: testExecutor({ workMs: 20 }), maxBatch: 2 })
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    const job = testJob(1, 36)
    let done = 0
    let victim: TestPeer | undefined
    let crash: Promise<void> | undefined
    for (const p of peers) {
      p.processor.addEventListener('microjob:done', () => { done++ })
      p.processor.addEventListener('ownership', () => {
        if (victim != null || done < 8) return
        const state = context(p, job.jobId)?.rooms.get(0)?.state
        if (state == null || state.owner !== p.id || countStates(state.states).open === 0) return
        victim = p
        p.stopped = true
        // the processor dies (its queue with it); the node stays up and keeps publishing signed gossip under the
        // same PeerId, as the restarted process does
        crash = p.processor.stop({ abrupt: true })
      })
    }
    const completed = new Set<TestPeer>()
    for (const p of peers) p.processor.addEventListener('job:complete', () => { completed.add(p) })
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => victim != null, { timeoutMs: 30_000, what: 'a peer to receive the queue' })
    await crash
    const chatter = setInterval(() => {
      victim!.node.pubsub.publish(jobsTopic(), new TextEncoder().encode('alive')).catch(() => {})
    }, 100)
    try {
      const survivors = peers.filter(p => p !== victim)
      await waitFor(() => survivors.every(p => completed.has(p)), { timeoutMs: 30_000, what: 'the survivors to complete the job' })
      expect(survivors.reduce((n, p) => n + p.processor.metrics.failovers, 0)).toBeGreaterThanOrEqual(1)
    } finally {
      clearInterval(chatter)
      await victim!.docs.stop().catch(() => {})
      await victim!.node.stop().catch(() => {})
    }
  })
})
