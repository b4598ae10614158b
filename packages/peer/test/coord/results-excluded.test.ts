import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { JobProgress, MICRO_MAP, RESULTS_MAP, coordGuards, doneMicroJobs, leases, readResults, recordVerifier, resultTable } from '../../src/coord/index.js'
import { applyGuarded, heal, roundDocName } from '../../src/crdt/index.js'
import { excludingVerifier, roundKey } from '../../src/jobs/index.js'
import { signer } from './signer-fixture.js'
import type { RecordSigner } from '../../src/coord/index.js'

const JOB = '0x' + 'ab'.repeat(32)
const ROUND = 1
const KEY = roundKey(JOB, ROUND)
const SCOPE = `jobmesh/result/${KEY}`

/**
 * A submitter slashed for the job in round 0 (`x`) works on round 1 as an honest holder does: it takes 0.0-0.2 of
 * MacroJob 0, then writes its turn record of junk outputs and drops its leases in one update. Returns the two updates.
 */
function slashedSubmittersTurn (x: RecordSigner): { leased: Uint8Array, turn: Uint8Array } {
  const doc = new Y.Doc()
  const c = { signer: x, verifier: recordVerifier() }
  const micro = leases(c).table(doc.getMap(MICRO_MAP), `jobmesh/micro/${KEY}`)
  micro.takeMany(['0.0', '0.1', '0.2'])
  const term = micro.get('0.0')?.term ?? 0
  const leased = Y.encodeStateAsUpdate(doc)
  const before = Y.encodeStateVector(doc)
  doc.transact(() => {
    resultTable(c, doc.getMap(RESULTS_MAP), KEY).writeTurn(0, [0, 1, 2].map(index => ({ index, term, outputHash: new Uint8Array(32).fill(9), size: 1 })))
    for (const i of [0, 1, 2]) doc.getMap(MICRO_MAP).delete(`0.${i}`)
  })
  return { leased, turn: Y.encodeStateAsUpdate(doc, before) }
}

/** An honest peer's copy of the round's doc, each update applied through the doc guard as the doc store does. */
function guardedDoc (updates: Uint8Array[]): Y.Doc {
  const doc = new Y.Doc()
  const guard = coordGuards()(roundDocName(JOB, ROUND))
  if (guard == null) throw new Error('round docs are guarded')
  for (const update of updates) heal(doc, applyGuarded(doc, update, Symbol('remote'), guard))
  return doc
}

describe('a slashed submitter\'s results in a later round', () => {
  it('do not count for the round\'s reader once the doc guard has accepted them with the plain verifier', async () => {
    const x = await signer()
    const excluding = excludingVerifier(recordVerifier(), new Set([x.peerId]))
    const { leased, turn } = slashedSubmittersTurn(x)
    const doc = guardedDoc([leased, turn])
    // the guard let the holder drop its leases: its turn record is valid for a reader that excludes nobody
    expect([...doc.getMap(MICRO_MAP).keys()]).toEqual([])
    const results = doc.getMap<Uint8Array>(RESULTS_MAP)
    expect(doneMicroJobs(results, KEY, recordVerifier())).toEqual(new Set(['0.0', '0.1', '0.2']))
    // the same bytes the guard read, through the round's excluding verifier (the processor's, and its JobProgress)
    expect(doneMicroJobs(results, KEY, excluding)).toEqual(new Set())
    const [turnKey] = [...results.keys()]
    expect(readResults(excluding, SCOPE, turnKey, results.get(turnKey))).toBeUndefined()
    const progress = new JobProgress({ verifier: excluding }, KEY, 3, () => 3)
    const done: string[] = []
    let completes = 0
    progress.addEventListener('microjob:done', (evt) => { done.push(evt.detail.key) })
    progress.addEventListener('complete', () => { completes++ })
    progress.watch(results)
    progress.stop()
    expect(done).toEqual([])
    expect(completes).toBe(0)
  })
})
