import * as Y from 'yjs'
import * as encoding from 'lib0/encoding'
import { afterEach, describe, expect, it } from 'vitest'
import { RESULTS_MAP, coordGuards, recordSigner, recordVerifier, resultKey, resultTable } from '../../src/coord/index.js'
import { GOSSIP_UPDATE_VERSION, docTopic, jobDocName } from '../../src/crdt/index.js'
import { waitFor } from '@jobmesh/testkit'
import { connect, Harness } from './helpers.js'

const JOB = '0x' + 'ce'.repeat(32)
const DOC = jobDocName(JOB)

/** A gossip message of a Yjs v1 update with no struct and a delete set of `client`'s clocks [from, from + 10^9). */
function deleteAhead (client: number, from: number): Uint8Array {
  const enc = encoding.createEncoder()
  encoding.writeUint8(enc, GOSSIP_UPDATE_VERSION)
  encoding.writeVarUint(enc, 0) // no structs
  encoding.writeVarUint(enc, 1) // one client in the delete set
  encoding.writeVarUint(enc, client)
  encoding.writeVarUint(enc, 1) // one range
  encoding.writeVarUint(enc, from)
  encoding.writeVarUint(enc, 1_000_000_000)
  return encoding.toUint8Array(enc)
}

describe('a delete set of clocks a writer has not used yet', () => {
  const h = new Harness()
  afterEach(async () => { await h.cleanup() })

  it('does not erase that writer\'s later records at the peers that received it', async () => {
    const [a, b, m] = await Promise.all([0, 1, 2].map(async (i) => h.start({ docs: i < 2 ? { guards: coordGuards() } : {} })))
    await connect(a, b)
    await connect(m, a)
    await connect(m, b)
    const [da, db] = await Promise.all([a, b, m].map(async p => p.docs.open(DOC)))
    const results = resultTable({ signer: recordSigner(a.node.privateKey, a.node.peerId.toString()), verifier: recordVerifier() }, da.getMap(RESULTS_MAP), JOB)
    results.write(0, 0, { term: 1, outputHash: new Uint8Array(32).fill(1), size: 1 })
    const first = resultKey(0, 0, a.node.peerId.toString())
    await waitFor(() => db.getMap(RESULTS_MAP).has(first), { timeoutMs: 10_000, what: 'the first result at b' })
    await waitFor(() => m.node.pubsub.getSubscribers(docTopic(DOC)).some(s => s.equals(b.node.peerId)), { timeoutMs: 10_000, what: 'm knows b subscribes' })

    // m (admitted: a registered node) gossips a deletion of a's next 10^9 clocks; b takes it (nothing to undo)
    const applied = b.docs.metrics.updatesApplied
    await m.node.pubsub.publish(docTopic(DOC), deleteAhead(da.clientID, Y.getState(da.store, da.clientID)))
    await waitFor(() => b.docs.metrics.updatesApplied > applied, { timeoutMs: 10_000, what: 'b applied the deletion' })
    expect(b.docs.metrics.guardViolations).toBe(0)

    // a writes its next result: b must hold it (before the fix Yjs deleted it on arrival, past the guard)
    results.write(0, 1, { term: 1, outputHash: new Uint8Array(32).fill(2), size: 1 })
    const second = resultKey(0, 1, a.node.peerId.toString())
    await waitFor(() => db.getMap(RESULTS_MAP).has(second), { timeoutMs: 5_000, what: 'the second result at b' })
    expect(db.store.pendingDs).toBeNull()
    expect(db.getMap(RESULTS_MAP).get(first)).toEqual(da.getMap(RESULTS_MAP).get(first))
  })
})
