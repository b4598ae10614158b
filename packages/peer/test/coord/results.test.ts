import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { JobProgress, RESULTS_MAP, recordVerifier, resultTable, turnResultKey } from '../../src/coord/index.js'
import type { TurnItem } from '../../src/coord/index.js'
import { signer } from './signer-fixture.js'

const JOB = '0x' + 'ef'.repeat(32)

const item = (index: number, term = 2): TurnItem => ({ index, term, outputHash: new Uint8Array(32).fill(index), size: 10 + index })

describe('turn records (one signed record per queue turn)', () => {
  it('one record holds a turn\'s results: each MicroJob reads back with its signer, term and output', async () => {
    const a = await signer()
    const doc = new Y.Doc()
    const map = doc.getMap<Uint8Array>(RESULTS_MAP)
    const table = resultTable({ signer: a, verifier: recordVerifier() }, map, JOB)
    table.writeTurn(1, [item(4), item(5), item(7, 3)])
    expect([...map.keys()]).toEqual([turnResultKey(1, 4, 2, a.peerId)])
    expect(table.list(1, 5)).toEqual([{ signer: a.peerId, term: 2, outputHash: new Uint8Array(32).fill(5), size: 15, outputCid: undefined }])
    expect(table.list(1, 7)[0].term).toBe(3)
    expect(table.list(1, 6)).toEqual([])
    expect(table.list(0, 4)).toEqual([])
    expect(table.doneKeys()).toEqual(new Set(['1.4', '1.5', '1.7']))
  })

  it('fencing counts per MicroJob across turn records and one-MicroJob records', async () => {
    const [a, b] = [await signer(), await signer()]
    const doc = new Y.Doc()
    const map = doc.getMap<Uint8Array>(RESULTS_MAP)
    const verifier = recordVerifier()
    resultTable({ signer: a, verifier }, map, JOB).writeTurn(0, [item(0, 1), item(1, 1)])
    // b redid 0.1 under a later lease (a's lease had run out); an older peer writes one record per MicroJob
    resultTable({ signer: b, verifier }, map, JOB).write(0, 1, item(1, 4))
    const table = resultTable({ signer: a, verifier }, map, JOB)
    expect(table.list(0, 1).map(r => r.signer).sort()).toEqual([a.peerId, b.peerId].sort())
    expect(table.counting(0, 1, { owner: b.peerId, term: 4, expiresAt: 0 })?.signer).toBe(b.peerId)
    expect(table.counting(0, 1, undefined)?.term).toBe(4)
    expect(table.counting(0, 0, undefined)?.signer).toBe(a.peerId)
  })

  it('a record moved to another key or slot, or naming MicroJobs outside its MacroJob, does not count', async () => {
    const [a, mallory] = [await signer(), await signer()]
    const doc = new Y.Doc()
    const map = doc.getMap<Uint8Array>(RESULTS_MAP)
    const verifier = recordVerifier()
    const size = (m: number): number => m === 0 ? 4 : 0
    resultTable({ signer: a, verifier }, map, JOB).writeTurn(0, [item(0), item(1)])
    const [key] = [...map.keys()]
    const value = map.get(key) as Uint8Array
    // the same bytes under another turn name (the domain binds the key) and under mallory's slot
    map.set(turnResultKey(0, 2, 2, a.peerId), value)
    map.set(`${key.split('/')[0]}/${mallory.peerId.slice(-8)}`, value)
    // mallory's own valid record for MicroJobs 0.9 (MacroJob 0 has 4) and 5.0 (no such MacroJob)
    resultTable({ signer: mallory, verifier }, map, JOB).writeTurn(0, [item(9), item(3)])
    resultTable({ signer: mallory, verifier }, map, JOB).writeTurn(5, [item(0)])
    // a reader that does not know the slicing reads first (the SDK's results table): it sees 0.9 and 5.0, and what it
    // decoded must not decide for a reader that knows the slicing
    expect(resultTable({ signer: a, verifier }, map, JOB).doneKeys()).toEqual(new Set(['0.0', '0.1', '0.3', '0.9', '5.0']))
    const table = resultTable({ signer: a, verifier }, map, JOB, size)
    expect(table.doneKeys()).toEqual(new Set(['0.0', '0.1', '0.3']))
    expect(table.list(0, 0)).toHaveLength(1)
    const progress = new JobProgress({ verifier }, JOB, 4, size)
    progress.watch(map)
    expect([...progress.done].sort()).toEqual(['0.0', '0.1', '0.3'])
    expect(progress.complete).toBe(false)
    progress.stop()
  })

  it('JobProgress reports every MicroJob of a turn record once, and completion when the last one lands', async () => {
    const a = await signer()
    const doc = new Y.Doc()
    const map = doc.getMap<Uint8Array>(RESULTS_MAP)
    const verifier = recordVerifier()
    const progress = new JobProgress({ verifier }, JOB, 3, () => 3)
    progress.watch(map)
    const done: string[] = []
    let completes = 0
    progress.addEventListener('microjob:done', (evt) => { done.push(evt.detail.key) })
    progress.addEventListener('complete', () => { completes++ })
    const table = resultTable({ signer: a, verifier }, map, JOB)
    table.writeTurn(0, [item(0), item(1)])
    expect(done).toEqual(['0.0', '0.1'])
    expect(progress.doneIn(0)).toBe(2)
    // a second record naming a done MicroJob again adds only the new one
    table.writeTurn(0, [item(1, 5), item(2, 5)])
    expect(done).toEqual(['0.0', '0.1', '0.2'])
    expect(completes).toBe(1)
    progress.stop()
  })
})
