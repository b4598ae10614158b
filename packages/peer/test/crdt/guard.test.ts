import * as Y from 'yjs'
import { afterEach, describe, expect, it } from 'vitest'
import {
  INDEX_JOBS_MAP, MICRO_MAP, RESULTS_MAP, coordGuards, encodeMessage, judgeCoordMessage, leases, createMetrics, recordSigner,
  recordVerifier, resultKey, resultTable
} from '../../src/coord/index.js'
import { INDEX_DOC, TopicValidatorResult, applyGuarded, docTopic, heal, jobDocName, rateLimiter } from '../../src/crdt/index.js'
import { signAnnouncement } from '../../src/jobs/index.js'
import { DEFAULT_PRICING, createTrafficCounters } from '../../src/protocol/index.js'
import { connect, Harness} from './helpers.js'
import { testJob, waitFor } from '@jobmesh/testkit'
import type { RecordSigner } from '../../src/coord/index.js'
import { signer } from '../coord/signer-fixture.js'

const JOB = '0x' + 'cd'.repeat(32)
const DOC = jobDocName(JOB)


/** A job doc where `holder` took MicroJob 0.0, wrote its result and dropped the lease, and holds 0.1. */
function honestDoc (holder: RecordSigner): Y.Doc {
  const doc = new Y.Doc()
  const c = { signer: holder, verifier: recordVerifier() }
  const micro = leases(c).table(doc.getMap(MICRO_MAP), `jobmesh/micro/${JOB}`)
  micro.takeMany(['0.0', '0.1'])
  doc.transact(() => {
    resultTable(c, doc.getMap(RESULTS_MAP), JOB).write(0, 0, { term: 1, outputHash: new Uint8Array(32).fill(1), size: 3 })
    micro.drop('0.0', 1)
  })
  return doc
}

/** Applies what `edit` does to a copy of `doc` to `doc` through the guard; returns the forbidden changes. */
function attack (doc: Y.Doc, edit: (copy: Y.Doc) => void): ReturnType<typeof applyGuarded> {
  const copy = new Y.Doc()
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(doc))
  const before = Y.encodeStateVector(copy)
  edit(copy)
  const guard = coordGuards()(DOC)
  if (guard == null) throw new Error('job docs are guarded')
  const forbidden = applyGuarded(doc, Y.encodeStateAsUpdate(copy, before), Symbol('remote'), guard)
  heal(doc, forbidden)
  return forbidden
}

describe('CRDT ownership guard (coordGuards + applyGuarded)', () => {
  it('undoes overwrites and deletions of records signed by another peer', async () => {
    const victim = await signer()
    const doc = honestDoc(victim)
    const key = resultKey(0, 0, victim.peerId)
    const result = doc.getMap<Uint8Array>(RESULTS_MAP).get(key)
    const lease = doc.getMap<Uint8Array>(MICRO_MAP).get('0.1')
    expect(result).toBeInstanceOf(Uint8Array)

    // junk over a result, a deleted result, a live lease deleted without a result, a result forged under the victim's slot
    const mallory = await signer()
    const forged = mallory.sign(`jobmesh/result/${JOB}/0.0`, new Uint8Array([8, 1]))
    for (const edit of [
      (d: Y.Doc) => { d.getMap(RESULTS_MAP).set(key, new Uint8Array([1, 2, 3])) },
      (d: Y.Doc) => { d.getMap(RESULTS_MAP).delete(key) },
      (d: Y.Doc) => { d.getMap(MICRO_MAP).delete('0.1') },
      (d: Y.Doc) => { d.getMap(RESULTS_MAP).set(key, forged) }
    ]) {
      expect(attack(doc, edit)).toHaveLength(1)
      expect(doc.getMap<Uint8Array>(RESULTS_MAP).get(key)).toEqual(result)
      expect(doc.getMap<Uint8Array>(MICRO_MAP).get('0.1')).toEqual(lease)
    }
  })

  it('an announcement in the index is replaced only by an announcement of the same job (a later round), not another job\'s', async () => {
    const job = testJob(1, 2)
    const [dapp, mallory] = [await signer(), await signer()]
    const index = new Y.Doc()
    const id = job.jobId.toLowerCase()
    index.getMap<Uint8Array>(INDEX_JOBS_MAP).set(id, signAnnouncement(dapp, job.spec, job.jobId, job.specCid, DEFAULT_PRICING))
    const real = index.getMap<Uint8Array>(INDEX_JOBS_MAP).get(id)
    const guard = coordGuards()(INDEX_DOC)
    if (guard == null) throw new Error('the index is guarded')
    const write = (value: Uint8Array): number => {
      const copy = new Y.Doc()
      Y.applyUpdate(copy, Y.encodeStateAsUpdate(index))
      const before = Y.encodeStateVector(copy)
      copy.getMap<Uint8Array>(INDEX_JOBS_MAP).set(id, value)
      const forbidden = applyGuarded(index, Y.encodeStateAsUpdate(copy, before), Symbol('remote'), guard)
      heal(index, forbidden)
      return forbidden.length
    }
    // a valid announcement of another job, signed by anybody, under this job's key: undone
    expect(write(signAnnouncement(mallory, job.spec, '0x' + 'ee'.repeat(32), job.specCid, DEFAULT_PRICING))).toBe(1)
    expect(index.getMap<Uint8Array>(INDEX_JOBS_MAP).get(id)).toEqual(real)
    // the same job re-signed by another peer (a later round is announced so): allowed
    expect(write(signAnnouncement(mallory, job.spec, job.jobId, job.specCid, DEFAULT_PRICING))).toBe(0)
  })

  it('allows what honest peers do: new records, a lease taken over, a lease dropped with its result', async () => {
    const a = await signer()
    const b = await signer()
    const doc = honestDoc(a)
    // b takes over 0.1 (a later term) and finishes it: result + drop in one transaction
    expect(attack(doc, d => {
      const c = { signer: b, verifier: recordVerifier() }
      const micro = leases(c, { leaseMs: 1 }).table(d.getMap(MICRO_MAP), `jobmesh/micro/${JOB}`)
      micro.takeMany(['0.1'])
    })).toEqual([])
    expect(attack(doc, d => {
      const c = { signer: b, verifier: recordVerifier() }
      const micro = leases(c).table(d.getMap(MICRO_MAP), `jobmesh/micro/${JOB}`)
      const term = micro.get('0.1')?.term ?? 0
      d.transact(() => {
        resultTable(c, d.getMap(RESULTS_MAP), JOB).write(0, 1, { term, outputHash: new Uint8Array(32), size: 1 })
        micro.drop('0.1', term)
      })
    })).toEqual([])
    expect(doc.getMap(MICRO_MAP).has('0.1')).toBe(false)
    expect(doc.getMap(RESULTS_MAP).has(resultKey(0, 1, b.peerId))).toBe(true)
  })
})

describe('CRDT ownership guard: turn records', () => {
  /** `holder` holds 0.0-0.2; `finish` writes its turn record for `items` and drops those leases in one transaction. */
  async function turnDoc (): Promise<{ doc: Y.Doc, holder: RecordSigner, term: number }> {
    const holder = await signer()
    const doc = new Y.Doc()
    const micro = leases({ signer: holder, verifier: recordVerifier() }).table(doc.getMap(MICRO_MAP), `jobmesh/micro/${JOB}`)
    micro.takeMany(['0.0', '0.1', '0.2'])
    return { doc, holder, term: micro.get('0.0')?.term ?? 0 }
  }
  const finish = (by: RecordSigner, items: number[], drops: number[], term: number) => (d: Y.Doc) => {
    const c = { signer: by, verifier: recordVerifier() }
    d.transact(() => {
      resultTable(c, d.getMap(RESULTS_MAP), JOB).writeTurn(0, items.map(index => ({ index, term, outputHash: new Uint8Array(32).fill(index), size: 1 })))
      for (const i of drops) d.getMap(MICRO_MAP).delete(`0.${i}`)
    })
  }

  it('a holder drops the leases of the MicroJobs its turn record holds, in the same update', async () => {
    const { doc, holder, term } = await turnDoc()
    expect(attack(doc, finish(holder, [0, 1], [0, 1], term))).toEqual([])
    expect([...doc.getMap(MICRO_MAP).keys()]).toEqual(['0.2'])
    expect(resultTable({ signer: holder, verifier: recordVerifier() }, doc.getMap(RESULTS_MAP), JOB).doneKeys()).toEqual(new Set(['0.0', '0.1']))
  })

  it('dropping a turn\'s leases costs one signature check (its turn record), not one per lease', async () => {
    const { doc, holder, term } = await turnDoc()
    const copy = new Y.Doc()
    Y.applyUpdate(copy, Y.encodeStateAsUpdate(doc))
    const before = Y.encodeStateVector(copy)
    finish(holder, [0, 1, 2], [0, 1, 2], term)(copy)
    const counters = createTrafficCounters()
    const guard = coordGuards(recordVerifier(counters))(DOC)
    if (guard == null) throw new Error('job docs are guarded')
    expect(applyGuarded(doc, Y.encodeStateAsUpdate(copy, before), Symbol('remote'), guard)).toEqual([])
    expect(doc.getMap(MICRO_MAP).size).toBe(0)
    expect(counters.recordVerifications).toBe(1)
  })

  it('a lease the turn record does not hold, or another peer\'s turn record, does not let a lease go', async () => {
    const { doc, holder, term } = await turnDoc()
    // the holder's record holds 0.0 only: the deletion of 0.1 is undone
    expect(attack(doc, finish(holder, [0], [0, 1], term))).toHaveLength(1)
    expect(doc.getMap(MICRO_MAP).has('0.1')).toBe(true)
    // another peer's turn record holding 0.2 does not free the holder's lease of 0.2
    const mallory = await signer()
    expect(attack(doc, finish(mallory, [2], [2], term))).toHaveLength(1)
    expect(doc.getMap(MICRO_MAP).has('0.2')).toBe(true)
  })

  it('a valid turn record cannot be overwritten by another signer or deleted', async () => {
    const { doc, holder, term } = await turnDoc()
    attack(doc, finish(holder, [0, 1], [0, 1], term))
    const [key] = [...doc.getMap(RESULTS_MAP).keys()]
    const good = doc.getMap<Uint8Array>(RESULTS_MAP).get(key)
    const mallory = await signer()
    const forged = mallory.sign(`jobmesh/result/${JOB}/${key.split('/')[0]}`, new Uint8Array([10, 0]))
    for (const edit of [
      (d: Y.Doc) => { d.getMap(RESULTS_MAP).set(key, forged) },
      (d: Y.Doc) => { d.getMap(RESULTS_MAP).delete(key) }
    ]) {
      expect(attack(doc, edit)).toHaveLength(1)
      expect(doc.getMap<Uint8Array>(RESULTS_MAP).get(key)).toEqual(good)
    }
  })
})

describe('gossip validation of doc topics', () => {
  const h = new Harness()
  afterEach(async () => { await h.cleanup() })

  it('rejects updates of a peer that is not admitted, and drops its pushed diffs; admitted peers are guarded', async () => {
    const members = new Set<string>()
    const admit = (peer: string): boolean => members.has(peer)
    const guarded = await Promise.all([0, 1].map(async () => h.start({ docs: { admit, guards: coordGuards() } })))
    for (const p of guarded) members.add(p.node.peerId.toString())
    const x = await h.start()
    const [ga, gb] = guarded
    await connect(ga, gb)
    await connect(x, ga)
    await connect(x, gb)
    const da = await ga.docs.open(DOC)
    const db = await gb.docs.open(DOC)
    const dx = await x.docs.open(DOC)
    const holder = recordSigner(ga.node.privateKey, ga.node.peerId.toString())
    const c = { signer: holder, verifier: recordVerifier() }
    resultTable(c, da.getMap(RESULTS_MAP), JOB).write(0, 0, { term: 1, outputHash: new Uint8Array(32).fill(9), size: 1 })
    const key = resultKey(0, 0, holder.peerId)
    await waitFor(() => db.getMap(RESULTS_MAP).has(key) && dx.getMap(RESULTS_MAP).has(key), { timeoutMs: 10_000, what: 'result everywhere' })
    const good = da.getMap<Uint8Array>(RESULTS_MAP).get(key)
    const subscribed = (p: typeof x, others: Array<typeof x>): boolean => others.every(o => p.node.pubsub.getSubscribers(docTopic(DOC)).some(s => s.equals(o.node.peerId)))
    await waitFor(() => subscribed(x, [ga, gb]), { timeoutMs: 10_000, what: 'x knows the subscribers' })

    // x (not admitted) overwrites the result and deletes it, on gossip; then pushes a diff over sync
    dx.getMap(RESULTS_MAP).set(key, new Uint8Array([6, 6, 6]))
    await x.docs.flush(DOC)
    dx.getMap(RESULTS_MAP).delete(key)
    await waitFor(() => ga.docs.metrics.gossipUnauthorized >= 2 && gb.docs.metrics.gossipUnauthorized >= 2, { timeoutMs: 10_000, what: 'rejected gossip' })
    await x.docs.sync(DOC, ga.node.peerId, { push: true, fresh: true })
    expect(ga.docs.metrics.syncRefused).toBeGreaterThan(0)
    expect(ga.docs.metrics.gossipRejected).toBeGreaterThanOrEqual(2)
    expect(ga.docs.metrics.guardViolations).toBe(0) // never applied, so nothing to undo
    expect(da.getMap<Uint8Array>(RESULTS_MAP).get(key)).toEqual(good)
    expect(db.getMap<Uint8Array>(RESULTS_MAP).get(key)).toEqual(good)
    // x may still read: its pull got the doc
    await expect(x.docs.sync(DOC, gb.node.peerId, { push: false })).resolves.toBeDefined()
  })

  it('an admitted peer that overwrites another peer\'s record is rejected and every guarded peer undoes it', async () => {
    const [a, b, m] = await Promise.all([0, 1, 2].map(async (i) => h.start({ docs: i < 2 ? { guards: coordGuards() } : {} })))
    await connect(a, b)
    await connect(m, a)
    await connect(m, b)
    const [da, db, dm] = await Promise.all([a, b, m].map(async p => p.docs.open(DOC)))
    const holder = recordSigner(a.node.privateKey, a.node.peerId.toString())
    resultTable({ signer: holder, verifier: recordVerifier() }, da.getMap(RESULTS_MAP), JOB).write(0, 0, { term: 1, outputHash: new Uint8Array(32).fill(9), size: 1 })
    const key = resultKey(0, 0, holder.peerId)
    await waitFor(() => db.getMap(RESULTS_MAP).has(key) && dm.getMap(RESULTS_MAP).has(key), { timeoutMs: 10_000, what: 'result everywhere' })
    const good = da.getMap<Uint8Array>(RESULTS_MAP).get(key)
    await waitFor(() => [a, b].every(o => m.node.pubsub.getSubscribers(docTopic(DOC)).some(s => s.equals(o.node.peerId))), { timeoutMs: 10_000, what: 'm knows the subscribers' })
    // the first junk can reach a or b over a sync exchange still running from the start (undone, not gossip); once
    // those are over it can only travel by gossip, where it is rejected: a few rounds at most
    const rejected = (): number => a.docs.metrics.gossipRejected + b.docs.metrics.gossipRejected
    for (let round = 0; round < 5 && rejected() === 0; round++) {
      const violations = a.docs.metrics.guardViolations + b.docs.metrics.guardViolations
      dm.getMap(RESULTS_MAP).set(key, new Uint8Array([6, 6, 6, round]))
      await waitFor(() => a.docs.metrics.guardViolations + b.docs.metrics.guardViolations > violations, { timeoutMs: 10_000, what: 'violation seen' })
      await waitFor(() => (dm.getMap<Uint8Array>(RESULTS_MAP).get(key) as Uint8Array).length === good?.length, { timeoutMs: 10_000, what: 'healed at the attacker too' })
    }
    expect(da.getMap<Uint8Array>(RESULTS_MAP).get(key)).toEqual(good)
    expect(db.getMap<Uint8Array>(RESULTS_MAP).get(key)).toEqual(good)
    expect(a.docs.metrics.gossipRejected + b.docs.metrics.gossipRejected).toBeGreaterThanOrEqual(1)
  })
})

describe('rate limits and coordination message validation', () => {
  it('a token bucket per peer: ok within the burst, over beyond it, abusive a whole burst beyond', () => {
    const rate = rateLimiter({ ratePerSecond: 10, burst: 5 })
    const t = 1_000
    expect(Array.from({ length: 5 }, () => rate.take('p', t))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok'])
    expect(rate.take('p', t)).toBe('over')
    expect(rate.take('q', t)).toBe('ok')
    for (let i = 0; i < 3; i++) rate.take('p', t)
    expect(rate.take('p', t)).toBe('abusive')
    expect(rate.take('p', t + 2_000)).toBe('ok') // refilled
  })

  it('a flood of fresh keys pushes out the quiet peers\' buckets, not the sender\'s empty one', () => {
    const rate = rateLimiter({ ratePerSecond: 1, burst: 2 })
    expect([rate.take('spammer', 0), rate.take('spammer', 0), rate.take('spammer', 0)]).toEqual(['ok', 'ok', 'over'])
    // more fresh keys than the table holds (10 000 by default), the spammer sending between them
    for (let i = 0; i < 12_000; i++) {
      rate.take(`fresh-${i}`, 0)
      if (i % 1_000 === 0) expect(rate.take('spammer', 0)).not.toBe('ok')
    }
    expect(rate.take('spammer', 0)).not.toBe('ok')
  })

  it('rejects oversized, unsigned and undecodable coordination messages', () => {
    const metrics = createMetrics()
    const init = { maxMessageBytes: 64, metrics }
    const ok = encodeMessage({ openJobs: { nonce: 1n } }, 64)
    expect(judgeCoordMessage({ type: 'signed', data: ok } as never, init)).toBe(TopicValidatorResult.Accept)
    expect(judgeCoordMessage({ type: 'signed', data: new Uint8Array(100).fill(0x0a) } as never, init)).toBe(TopicValidatorResult.Reject)
    expect(judgeCoordMessage({ type: 'signed', data: new Uint8Array([0xff, 0xff, 0xff]) } as never, init)).toBe(TopicValidatorResult.Reject)
    expect(judgeCoordMessage({ type: 'unsigned', data: ok } as never, init)).toBe(TopicValidatorResult.Reject)
    expect(metrics.droppedOversized).toBe(1)
    expect(metrics.droppedMalformed).toBe(1)
    expect(metrics.droppedForged).toBe(1)
  })
})
