import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { RESULTS_MAP, coordGuards, recordVerifier, resultKey, resultTable } from '../../src/coord/index.js'
import { applyGuarded, heal, jobDocName } from '../../src/crdt/index.js'
import { signer } from '../coord/signer-fixture.js'
import type { KeyChange } from '../../src/crdt/index.js'

const JOB = '0x' + 'cf'.repeat(32)
const guard = coordGuards()(jobDocName(JOB))
if (guard == null) throw new Error('no guard for a job doc')

const apply = (doc: Y.Doc, update: Uint8Array): KeyChange[] => {
  const forbidden = applyGuarded(doc, update, Symbol('remote'), guard)
  heal(doc, forbidden)
  return forbidden
}

/**
 * An update of one item by `attacker` placed right after `victim`'s next clock (its origin), wherever that clock lands:
 * Yjs takes an item's key from its origin, so the item lands in the key the victim writes next.
 */
function afterNextClock (victim: Y.Doc, attacker: number, junk: Uint8Array): Uint8Array {
  const copy = new Y.Doc()
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(victim))
  copy.clientID = victim.clientID
  copy.getMap(RESULTS_MAP).set('anything', new Uint8Array([0]))
  const sv = Y.encodeStateVector(copy)
  copy.clientID = attacker
  copy.getMap(RESULTS_MAP).set('anything', junk)
  return Y.encodeStateAsUpdate(copy, sv)
}

/** A writer `x` (signing as `victim`) with one result, and a receiver `r` that holds it. */
async function writerAndReceiver (): Promise<{ victim: Awaited<ReturnType<typeof signer>>, x: Y.Doc, results: ReturnType<typeof resultTable>, r: Y.Doc }> {
  const victim = await signer()
  const x = new Y.Doc()
  const results = resultTable({ signer: victim, verifier: recordVerifier() }, x.getMap(RESULTS_MAP), JOB)
  results.write(0, 0, { term: 1, outputHash: new Uint8Array(32).fill(1), size: 3 })
  const r = new Y.Doc()
  expect(apply(r, Y.encodeStateAsUpdate(x))).toEqual([])
  return { victim, x, results, r }
}

describe('an item left pending after a writer\'s next clock', () => {
  it('does not overwrite the record that writer writes there next; the writer\'s update is not blamed', async () => {
    const { victim, x, results, r } = await writerAndReceiver()

    // the attacker's item waits at r for x's next clock
    expect(apply(r, afterNextClock(x, 4242, new Uint8Array([6, 6, 6])))).toEqual([])
    expect(r.store.pendingStructs).not.toBeNull()

    // x writes its next result; r receives it, and with it the pending junk right after it
    const before = Y.encodeStateVector(r)
    results.write(0, 1, { term: 1, outputHash: new Uint8Array(32).fill(2), size: 3 })
    const key = resultKey(0, 1, victim.peerId)
    const forbidden = apply(r, Y.encodeStateAsUpdate(x, before))
    expect(forbidden).toHaveLength(1)
    expect(forbidden[0]).toMatchObject({ map: RESULTS_MAP, key, action: 'update', blameless: true })
    expect(r.getMap(RESULTS_MAP).get(key)).toEqual(x.getMap(RESULTS_MAP).get(key))
  })

  it('blames an update that carries both the record and the junk after it', async () => {
    const { victim, x, results, r } = await writerAndReceiver()
    const before = Y.encodeStateVector(r)
    // the attacker got x's next record first and sends it on with its junk after it, in one update
    results.write(0, 1, { term: 1, outputHash: new Uint8Array(32).fill(2), size: 3 })
    const key = resultKey(0, 1, victim.peerId)
    // (gc off: the overwritten record keeps its content in the update, so the receiver holds it)
    const copy = new Y.Doc({ gc: false })
    Y.applyUpdate(copy, Y.encodeStateAsUpdate(x))
    copy.getMap(RESULTS_MAP).set(key, new Uint8Array([6, 6, 6]))
    const forbidden = apply(r, Y.encodeStateAsUpdate(copy, before))
    expect(forbidden).toHaveLength(1)
    expect(forbidden[0]).toMatchObject({ key, action: 'update' })
    expect(forbidden[0].blameless).toBeUndefined()
    expect(r.getMap(RESULTS_MAP).get(key)).toEqual(x.getMap(RESULTS_MAP).get(key))
  })

  it('does not blame the writer when the junk lands over a key that already held a valid record', async () => {
    const { victim, x, r } = await writerAndReceiver()
    const key = resultKey(0, 0, victim.peerId)

    // the attacker's item waits at r for x's next clock
    expect(apply(r, afterNextClock(x, 4242, new Uint8Array([6, 6, 6])))).toEqual([])
    expect(r.store.pendingStructs).not.toBeNull()

    // x writes the same key again (a valid record replacing a valid record: a lease, a summary, a re-announcement, a heal)
    const before = Y.encodeStateVector(r)
    x.getMap(RESULTS_MAP).set(key, x.getMap(RESULTS_MAP).get(key))
    const forbidden = apply(r, Y.encodeStateAsUpdate(x, before))
    expect(forbidden).toHaveLength(1)
    expect(forbidden[0]).toMatchObject({ map: RESULTS_MAP, key, action: 'update', blameless: true })
    expect(r.getMap(RESULTS_MAP).get(key)).toEqual(x.getMap(RESULTS_MAP).get(key))
  })
})
