import { afterEach, describe, expect, it } from 'vitest'
import {
  CoordMessage, DEFAULT_MAX_MESSAGE_BYTES, INDEX_JOBS_MAP, LeaseRecord, RESULTS_MAP, encodeMessage, fromWire, jobsTopic, macroKey, macroScope, macroTopic,
  recordSigner, roomTopic, toWire
} from '../../src/coord/index.js'
import { INDEX_DOC, jobDocName, macroDocName } from '../../src/crdt/index.js'
import { createNode } from '../../src/node/index.js'
import { attackerBeside } from './attacker-node.js'
import { watchJob } from './job-watch.js'
import { signAnnouncement } from '../../src/jobs/index.js'
import { NEW_JOBS_PER_SENDER } from '../../src/processor/constants.js'
import { DEFAULT_PRICING, sliceJob } from '../../src/protocol/index.js'
import type { QueueState } from '../../src/coord/index.js'
import type { MicroJobExecutor } from '../../src/executor/index.js'
import { startPeers, stopPeers, testExecutor, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'
import type { Stoppable } from './attacker-node.js'

let peers: TestPeer[] = []
const extra: Stoppable[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
  for (const e of extra.splice(0)) await e.stop().catch(() => {})
})

describe('forged and malformed input', () => {
  it('is ignored, counted, and the job still completes', async () => {
    // the last MicroJob of the MacroJob waits until the forged result (step 5) was counted: the job is still being
    // processed when the forgery arrives, however slow this machine is
    let releaseLast!: () => void
    const lastMayRun = new Promise<void>(resolve => { releaseLast = resolve })
    const base = testExecutor({ workMs: 60 })
    const executor: MicroJobExecutor = {
      async run (task, options) {
        if (task.index === 39) {
          await new Promise<void>((resolve, reject) => {
            const onAbort = (): void => { reject(options.signal.reason) }
            options.signal.addEventListener('abort', onAbort, { once: true })
            void lastMayRun.then(() => { options.signal.removeEventListener('abort', onAbort); resolve() })
          })
        }
        return base.run(task, options)
      }
    }
    peers = await startPeers(3, { executor, maxBatch: 2 })
    const { node: attacker, docs: attackerDocs } = await attackerBeside(peers, extra)
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    const job = testJob(1, 40)
    const topic = roomTopic(job.jobId, sliceJob(job.spec, job.jobId).macroJobs[0].macroId)
    let latest: QueueState | undefined
    attacker.pubsub.subscribe(topic)
    attacker.pubsub.addEventListener('message', (evt) => {
      if (evt.detail.topic !== topic) return
      try {
        const s = CoordMessage.decode(evt.detail.data).snapshot
        if (s != null) {
          const st = fromWire(s, 40, 0)
          if (latest == null || st.term > latest.term || (st.term === latest.term && st.version > latest.version)) latest = st
        }
      } catch { // not a snapshot
      }
    })
    const progress = watchJob(peers)
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    const doc = await attackerDocs.open(jobDocName(job.jobId))
    await waitFor(() => latest != null && latest.term >= 2 && progress.done() >= 4, { timeoutMs: 20_000, what: 'the room to run' })
    const me = attacker.peerId.toString()
    const cur = latest!
    const publish = async (data: Uint8Array) => { await attacker.pubsub.publish(topic, data) }
    // 1. a snapshot claiming a new epoch with a MacroJob lease signed by someone else (the honest holder); far ahead of
    // any real epoch, so that it is judged as a claim even when the peers moved on to another epoch meanwhile (a slow
    // owner failed over: a claim of an epoch they have passed is merely stale)
    await waitFor(() => doc.getMap<Uint8Array>('macro').get('0') != null, { timeoutMs: 10_000, what: 'the macro lease to sync' })
    const honestLease = doc.getMap<Uint8Array>('macro').get('0')!
    await publish(CoordMessage.encode({ snapshot: toWire({ ...cur, epoch: cur.epoch + 1_000, term: 0, version: 0, owner: me, prevOwner: me, macroLease: honestLease }) }))
    // 2. a snapshot with an old term
    await publish(CoordMessage.encode({ snapshot: toWire({ ...cur, term: 0, version: 0 }) }))
    // 3. an oversized message
    await publish(new Uint8Array(70 * 1024))
    // 4. an undecodable message
    await publish(Uint8Array.from([0xff, 0xff, 0xff, 0x01, 0x02]))
    // 5. a result record with a bad signature, written into the MacroJob's shared doc under an honest peer's slot
    const macroDoc = await attackerDocs.open(macroDocName(jobDocName(job.jobId), 0))
    const honest = macroDoc.getMap<Uint8Array>(RESULTS_MAP)
    await waitFor(() => honest.size > 0, { timeoutMs: 10_000, what: 'a result to copy' })
    const [key, value] = [...honest.entries()][0]
    const bad = value.slice()
    bad[bad.length - 40] ^= 0xff
    const [micro] = key.split('/')
    const victimKey = `0.39/${key.split('/')[1]}`
    expect(micro).not.toBe('0.39')
    honest.set(victimKey, bad)
    // gossiped as it is written; pushed to every holder by a sync exchange too, so that the check below does not rest
    // on one gossip message from a peer that has just sent the room garbage
    await attackerDocs.confirm(macroDocName(jobDocName(job.jobId), 0), { timeoutMs: 10_000 })
    const sum = (f: (m: TestPeer['processor']['metrics']) => number) => peers.reduce((n, p) => n + f(p.processor.metrics), 0)
    await waitFor(() => sum(m => m.invalidRecords) >= 1, { timeoutMs: 20_000, what: 'the forged result to be counted' })
    releaseLast()
    await progress.untilComplete(30_000)
    expect(sum(m => m.droppedForged)).toBeGreaterThanOrEqual(1)
    expect(sum(m => m.droppedStale)).toBeGreaterThanOrEqual(1)
    expect(sum(m => m.droppedOversized)).toBeGreaterThanOrEqual(1)
    expect(sum(m => m.droppedMalformed)).toBeGreaterThanOrEqual(1)
    expect(sum(m => m.invalidRecords)).toBeGreaterThanOrEqual(1)
    // the attacker never owned the queue, and every MicroJob has a valid result
    for (const p of peers) expect(p.processor.ownersSeen().get(`${job.jobId}/0`)?.has(me)).toBe(false)
  })
})

describe('a peer that names itself the owner of a room', () => {
  /**
   * Three peers run a job of 40 MicroJobs while a fourth node, from the room's start to the job's end, publishes every
   * 50 ms snapshots naming itself the owner: under a MacroJob lease it signed itself (of an epoch far ahead, and of
   * the current one), and of a turn far ahead in the current epoch; and an announcement of a MacroJob the job does
   * not have. Resolves once the job completed. With
   * `registered`, the peers let only its members (the three) publish on the job's rooms and `/macro`.
   */
  async function hijacked (registered?: Set<string>): Promise<{ me: string, jobId: string, sent: number, done: number }> {
    const mayCoordinate = registered == null ? undefined : async (peerId: string): Promise<boolean> => registered.has(peerId)
    // MicroJobs of 200 ms: most of the queue is still open when the hijack starts, so a room taken stalls the job
    // (where the hijacker's messages are not even delivered, 20 ms do)
    const workMs = registered == null ? 200 : 20
    peers = await startPeers(3, { executor: testExecutor({ workMs }), maxBatch: 2, mayCoordinate })
    for (const p of peers) registered?.add(p.id)
    const attacker = await createNode()
    extra.push(attacker)
    for (const p of peers) await attacker.libp2p.dial(p.node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    const job = testJob(1, 40)
    const topic = roomTopic(job.jobId, sliceJob(job.spec, job.jobId).macroJobs[0].macroId)
    const me = attacker.peerId.toString()
    const signer = recordSigner(attacker.privateKey, me)
    const ownLease = (term: number): Uint8Array =>
      signer.sign(`${macroScope(job.jobId)}/${macroKey(0)}`, LeaseRecord.encode({ term, expiresAt: BigInt(Date.now() + 3_600_000) }))
    let epoch = 0
    let owner = ''
    attacker.pubsub.subscribe(topic)
    attacker.pubsub.subscribe(macroTopic(job.jobId))
    attacker.pubsub.addEventListener('message', (evt) => {
      if (evt.detail.topic !== topic) return
      try {
        const snap = CoordMessage.decode(evt.detail.data).snapshot
        const state = snap == null ? undefined : fromWire(snap, 40, 0)
        if (state != null && state.epoch >= epoch) [epoch, owner] = [state.epoch, state.owner]
      } catch { // not a snapshot
      }
    })
    const progress = watchJob(peers)
    await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => epoch > 0 || progress.done() > 0, { timeoutMs: 20_000, what: 'the room to open' })
    const snapshot = (fields: Pick<QueueState, 'epoch' | 'term' | 'prevOwner'> & { macroLease?: Uint8Array }): Uint8Array => CoordMessage.encode({
      snapshot: toWire({ macroIndex: 0, owner: me, version: 0, states: new Uint8Array(40), locks: new Map(), pending: [], ...fields })
    })
    // a new epoch under a lease it signed itself; a turn far ahead in the current epoch, as if the owner seen last had
    // handed it the queue
    const hijack = (e: number): Uint8Array => snapshot({ epoch: e, term: 0, prevOwner: me, macroLease: ownLease(e) })
    const jump = (): Uint8Array => snapshot({ epoch: Math.max(1, epoch), term: 1_000_000, prevOwner: owner === me ? '' : owner })
    const bogusRoom = CoordMessage.encode({ room: { macroIndex: 9_999, open: 50 } } as never)
    let sent = 0
    const publish = (data: Uint8Array): void => { void attacker.pubsub.publish(topic, data).then(() => { sent++ }, () => {}) }
    // the turn far ahead is sent once, then, once members would have taken it from their buffer (a heartbeat and a
    // tick later), repeated as its owner's heartbeats
    const jumped = { bytes: jump(), at: Date.now() }
    publish(jumped.bytes)
    const timer = setInterval(() => {
      for (const data of [hijack(epoch + 1_000), hijack(Math.max(1, epoch))]) publish(data)
      if (Date.now() - jumped.at > 600) publish(jumped.bytes)
      void attacker.pubsub.publish(macroTopic(job.jobId), bogusRoom).catch(() => {})
    }, 50)
    try {
      await progress.untilComplete(40_000)
    } finally {
      clearInterval(timer)
    }
    return { me, jobId: job.jobId, sent, done: progress.done() }
  }

  it('with a MacroJob lease it signed itself (a far epoch, the current one) or a turn far ahead, is never followed: the job completes', async () => {
    const { me, jobId, sent, done } = await hijacked()
    expect(sent).toBeGreaterThan(4)
    expect(done).toBeGreaterThanOrEqual(40)
    for (const p of peers) expect(p.processor.ownersSeen().get(`${jobId}/0`)?.has(me)).toBe(false)
  })

  it('where only registered nodes may coordinate, its messages are not even delivered', async () => {
    const { me, jobId, sent } = await hijacked(new Set())
    expect(sent).toBeGreaterThan(4)
    expect(peers.reduce((n, p) => n + p.processor.metrics.droppedUnadmitted, 0)).toBeGreaterThan(0)
    for (const p of peers) expect(p.processor.ownersSeen().get(`${jobId}/0`)?.has(me)).toBe(false)
  })
})

describe('announcements on /jobs', () => {
  it('a sender announces at most its budget of jobs new to a peer; the others\' announcements are still learnt', async () => {
    peers = await startPeers(2)
    const attacker = await createNode()
    extra.push({ stop: async () => { await attacker.stop() } })
    await attacker.libp2p.dial(peers[0].node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    await Promise.all(peers.map(async p => p.processor.start()))
    attacker.pubsub.subscribe(jobsTopic())
    await waitFor(() => peers[0].node.pubsub.getSubscribers(jobsTopic()).some(p => p.equals(attacker.peerId)) &&
      attacker.pubsub.getSubscribers(jobsTopic()).some(p => p.equals(peers[0].node.peerId)), { what: 'the attacker on /jobs', timeoutMs: 10_000 })
    // valid, signed announcements of the budget + 60 jobs nobody funded (there is no chain here: each would be worked on)
    const sent = NEW_JOBS_PER_SENDER.burst + 60
    const signer = recordSigner(attacker.privateKey, attacker.peerId.toString())
    const template = testJob(1, 2)
    const start = Date.now()
    for (let i = 0; i < sent; i++) {
      const jobId = `0x${(i + 1).toString(16).padStart(64, 'f')}`
      const announcement = signAnnouncement(signer, template.spec, jobId, template.specCid, DEFAULT_PRICING) as Uint8Array<ArrayBuffer>
      await attacker.pubsub.publish(jobsTopic(), encodeMessage({ announcement }, DEFAULT_MAX_MESSAGE_BYTES))
    }
    const target = peers[0].processor
    await waitFor(() => target.knownJobs().length + target.metrics.rateLimited >= sent, { what: 'every announcement learnt or dropped', timeoutMs: 20_000 })
    // the budget, and what it refilled while the announcements arrived
    const budget = NEW_JOBS_PER_SENDER.burst
    const refilled = Math.ceil((Date.now() - start) / 1000) * NEW_JOBS_PER_SENDER.ratePerSecond
    expect(target.knownJobs().length).toBeGreaterThanOrEqual(budget)
    expect(target.knownJobs().length).toBeLessThanOrEqual(budget + refilled)
    // another peer's job is learnt as before
    const job = testJob(1, 2)
    await peers[1].processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => target.knownJobs().some(j => j.jobId === job.jobId), { what: 'the honest job learnt', timeoutMs: 20_000 })
  })

  it('an index entry that holds another job\'s announcement is not learnt', async () => {
    peers = await startPeers(2)
    await Promise.all(peers.map(async p => p.processor.start()))
    const signer = recordSigner(peers[1].node.privateKey, peers[1].node.peerId.toString())
    const [hidden, shown] = [testJob(1, 2), testJob(1, 2)]
    const index = (await peers[1].docs.open(INDEX_DOC)).getMap<Uint8Array>(INDEX_JOBS_MAP)
    index.set('0x' + 'ab'.repeat(32), signAnnouncement(signer, hidden.spec, hidden.jobId, hidden.specCid, DEFAULT_PRICING))
    index.set(shown.jobId.toLowerCase(), signAnnouncement(signer, shown.spec, shown.jobId, shown.specCid, DEFAULT_PRICING))
    const target = peers[0].processor
    await waitFor(() => target.knownJobs().some(j => j.jobId === shown.jobId), { what: 'the job under its own key learnt', timeoutMs: 20_000 })
    expect(target.knownJobs().some(j => j.jobId === hidden.jobId)).toBe(false)
  })
})
