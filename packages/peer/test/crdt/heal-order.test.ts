import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { createMetrics } from '../../src/crdt/metrics.js'
import { openDocEntry, remoteApplier } from '../../src/crdt/open-doc.js'
import type { DocGuard } from '../../src/crdt/index.js'

const GOSSIP = Symbol('gossip')

/**
 * A guard with the shape of the coordination rules, as pure logic: a result may only be a `valid` value, and a lease
 * may be deleted only while its MicroJob's valid result is in the doc (a holder drops its lease with its result).
 */
const guard: DocGuard = {
  allows (c, doc) {
    if (c.map === 'results') return c.newValue === undefined ? false : String(c.newValue).startsWith('valid')
    if (c.map === 'leases' && c.action === 'delete') return doc.getMap('results').get(c.key) === 'valid result'
    return true
  }
}

describe('a forbidden update is healed records first, then its deletions judged again', () => {
  it('a lease drop allowed by the result that junk had overwritten in the same update stays dropped, the result comes back', () => {
    // the holder's doc: its lease and its valid result of MicroJob 7
    const holder = new Y.Doc()
    holder.getMap('leases').set('7', 'lease of the holder')
    holder.getMap('results').set('7', 'valid result')
    const mine = new Y.Doc()
    Y.applyUpdate(mine, Y.encodeStateAsUpdate(holder))
    // one update that overwrites the result with junk and drops the lease (as pending junk did in one transaction)
    const before = Y.encodeStateVector(holder)
    holder.transact(() => {
      holder.getMap('results').set('7', 'junk')
      holder.getMap('leases').delete('7')
    })
    const update = Y.encodeStateAsUpdate(holder, before)

    const metrics = createMetrics()
    const published: unknown[] = []
    const apply = remoteApplier({ metrics, init: { guards: () => guard }, onDocUpdate: (_e, _u, origin) => { published.push(origin) } })
    const entry = openDocEntry({ name: 'd', topic: 't', doc: mine, persistence: undefined as never, published: 0, rate: undefined as never, onUpdate: () => {} })
    expect(apply(entry, update, GOSSIP)).toBe('forbidden')
    // the result is healed back; the lease drop, judged again once the result was back, is allowed: not healed, not counted
    expect(mine.getMap('results').get('7')).toBe('valid result')
    expect(mine.getMap('leases').has('7')).toBe(false)
    expect(metrics.guardViolations).toBe(1)
  })
})
