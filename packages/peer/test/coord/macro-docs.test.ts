import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import {
  JobProgress, MICRO_MAP, RESULTS_MAP, ResultRecord, SUMMARY_MAP, TurnResults, coordGuards, leases, macroDocs, microKey,
  recordVerifier, resultScope, resultSlot, resultTable, summaryScope
} from '../../src/coord/index.js'
import { jobDocName, macroDocName } from '../../src/crdt/index.js'
import type { MacroDocs, RecordSigner, TurnItem } from '../../src/coord/index.js'
import type { OpenOptions } from '../../src/crdt/index.js'
import { signer } from './signer-fixture.js'

const JOB = '0x' + 'ab'.repeat(32)
const ROUND_DOC = jobDocName(JOB)


const item = (index: number, term = 2): TurnItem => ({ index, term, outputHash: new Uint8Array(32).fill(index), size: 4 })

/** Real Yjs docs by name, as a doc store holds them (opened once), and the names asked for (a read marked so). */
function store (): { open(name: string, options?: OpenOptions): Promise<Y.Doc>, docs: Map<string, Y.Doc>, asked: string[] } {
  const docs = new Map<string, Y.Doc>()
  const asked: string[] = []
  return {
    docs,
    asked,
    async open (name, options) {
      asked.push(options?.follow === false ? `read ${name}` : name)
      let doc = docs.get(name)
      if (doc == null) docs.set(name, doc = new Y.Doc())
      return doc
    }
  }
}

async function tables (s: RecordSigner, docs = store()): Promise<{ md: MacroDocs, docs: ReturnType<typeof store> }> {
  const verifier = recordVerifier()
  return { md: macroDocs({ signer: s, verifier, docs, leases: leases({ signer: s, verifier }) }, { roundDoc: ROUND_DOC, jobKey: JOB }), docs }
}

describe('macroDocs (a doc per MacroJob)', () => {
  it('each MacroJob\'s leases and results go to its own doc; the tables read across the docs open here', async () => {
    const a = await signer()
    const { md, docs } = await tables(a)
    await md.open(0)
    await md.open(2)
    md.transact(0, () => { md.results.writeTurn(0, [item(1)]) })
    md.transact(2, () => { md.results.writeTurn(2, [item(5)]) })
    const locked = md.microLeases.takeMany([microKey(0, 3), microKey(2, 6), microKey(2, 7)])
    expect([...locked.keys()].sort()).toEqual(['0.3', '2.6', '2.7'])

    const m0 = docs.docs.get(macroDocName(ROUND_DOC, 0))!
    const m2 = docs.docs.get(macroDocName(ROUND_DOC, 2))!
    expect([...m0.getMap(MICRO_MAP).keys()]).toEqual(['0.3'])
    expect([...m2.getMap(MICRO_MAP).keys()].sort()).toEqual(['2.6', '2.7'])
    expect(resultTable({ signer: a, verifier: recordVerifier() }, m0.getMap<Uint8Array>(RESULTS_MAP), JOB).doneKeys()).toEqual(new Set(['0.1']))
    expect(resultTable({ signer: a, verifier: recordVerifier() }, m2.getMap<Uint8Array>(RESULTS_MAP), JOB).doneKeys()).toEqual(new Set(['2.5']))

    expect(md.results.doneKeys()).toEqual(new Set(['0.1', '2.5']))
    expect(md.results.list(2, 5).map(r => r.signer)).toEqual([a.peerId])
    expect(md.microLeases.holds(microKey(2, 6), locked.get('2.6')!.term)).toBe(true)
  })

  it('a MacroJob whose doc is not open has no leases and no results here, and writing to it is a typed error', async () => {
    const a = await signer()
    const { md } = await tables(a)
    expect(md.microLeases.get(microKey(1, 0))).toBeUndefined()
    expect(md.microLeases.isOpen(microKey(1, 0))).toBe(true)
    expect(md.microLeases.holds(microKey(1, 0), 1)).toBe(false)
    expect(md.results.list(1, 0)).toEqual([])
    expect(() => md.microLeases.takeMany([microKey(1, 0)])).toThrow(expect.objectContaining({ name: 'MacroDocNotOpenError' }))
    expect(() => { md.results.writeTurn(1, [item(0)]) }).toThrow(expect.objectContaining({ name: 'MacroDocNotOpenError' }))
    // releasing or dropping a lease of a doc not open is nothing to do
    md.microLeases.release(microKey(1, 0), 1)
    md.microLeases.drop(microKey(1, 0), 1)
  })

  it('opens a MacroJob\'s doc once: concurrent opens share it and onOpen runs once', async () => {
    const a = await signer()
    const verifier = recordVerifier()
    const docs = store()
    const opened: number[] = []
    const md = macroDocs({ signer: a, verifier, docs, leases: leases({ signer: a, verifier }) }, {
      roundDoc: ROUND_DOC, jobKey: JOB, onOpen: (m) => { opened.push(m) }
    })
    const [x, y] = await Promise.all([md.open(3), md.open(3)])
    expect(x).toBe(y)
    expect(await md.open(3)).toBe(x)
    expect(opened).toEqual([3])
    expect(docs.asked).toEqual([macroDocName(ROUND_DOC, 3)])
  })

  it('a doc read (follow: false) is opened again to follow once a caller follows it, and only once', async () => {
    const a = await signer()
    const { md, docs } = await tables(a)
    const read = await md.open(2, { follow: false })
    expect(await md.open(2, { follow: false })).toBe(read)
    const [x, y] = await Promise.all([md.open(2), md.open(2)])
    expect(x).toBe(read)
    expect(y).toBe(read)
    await md.open(2)
    const name = macroDocName(ROUND_DOC, 2)
    // the two concurrent follows each ask the store (a store subscribes a doc once however often it is opened)
    expect(docs.asked).toEqual([`read ${name}`, name, name])
  })
})

describe('JobProgress across MacroJob docs and summaries', () => {
  const size = (m: number): number => m < 2 ? 2 : 0

  /** MacroJob m's doc open in the tables of a fresh signer, its results map watched by a progress tracker. */
  async function watched (m: number): Promise<{ a: RecordSigner, verifier: ReturnType<typeof recordVerifier>, progress: JobProgress, md: MacroDocs, map: Y.Map<Uint8Array> }> {
    const a = await signer()
    const verifier = recordVerifier()
    const progress = new JobProgress({ verifier }, JOB, 4, size)
    const { md } = await tables(a)
    const map = (await md.open(m)).doc.getMap<Uint8Array>(RESULTS_MAP)
    progress.watch(map, m)
    return { a, verifier, progress, md, map }
  }

  it('counts results from every watched doc; a summary is shown but makes no MicroJob done', async () => {
    const a = await signer()
    const verifier = recordVerifier()
    const job = new Y.Doc()
    const progress = new JobProgress({ verifier }, JOB, 4, size)
    const events: string[] = []
    progress.addEventListener('microjob:done', (evt) => { events.push(evt.detail.key) })
    progress.addEventListener('summary', (evt) => { events.push(`summary ${evt.detail.macroIndex}`) })
    progress.addEventListener('complete', () => { events.push('complete') })
    progress.watchSummaries(job.getMap<Uint8Array>(SUMMARY_MAP))

    const m0 = new Y.Doc()
    resultTable({ signer: a, verifier }, m0.getMap<Uint8Array>(RESULTS_MAP), JOB).writeTurn(0, [item(0)])
    progress.watch(m0.getMap<Uint8Array>(RESULTS_MAP), 0)
    expect(events).toEqual(['0.0'])

    // MacroJob 1 summarized by a peer of its room: shown as done, not done
    job.getMap<Uint8Array>(SUMMARY_MAP).set('1', a.sign(`${summaryScope(JOB)}/1`, new TextEncoder().encode('2')))
    expect(events).toEqual(['0.0', 'summary 1'])
    expect(progress.summarized(1)).toBe(true)
    // its signer held every result when it wrote it: a reader asks it first
    expect(progress.summarizer(1)).toBe(a.peerId)
    expect(progress.summarizer(0)).toBeUndefined()
    expect(progress.shown()).toBe(3)
    expect(progress.done.size).toBe(1)
    expect(progress.complete).toBe(false)
    expect(progress.has('1.0')).toBe(false)

    // its results, once its doc is read, complete the job
    const m1 = new Y.Doc()
    resultTable({ signer: a, verifier }, m1.getMap<Uint8Array>(RESULTS_MAP), JOB).writeTurn(1, [item(0), item(1)])
    expect(progress.hinted(1)).toBe(true)
    progress.watch(m1.getMap<Uint8Array>(RESULTS_MAP), 1)
    expect(progress.hinted(1)).toBe(false)
    resultTable({ signer: a, verifier }, m0.getMap<Uint8Array>(RESULTS_MAP), JOB).writeTurn(0, [item(1, 3)])
    expect(events).toEqual(['0.0', 'summary 1', '1.0', '1.1', '0.1', 'complete'])
    expect(progress.shown()).toBe(4)
  })

  it('a MacroJob doc\'s records of another MacroJob count nowhere: settlement reads MacroJob m in m\'s doc only', async () => {
    const { a, verifier, progress, md, map } = await watched(0)
    // valid records of MacroJob 1, written into MacroJob 0's doc
    resultTable({ signer: a, verifier }, map, JOB).writeTurn(1, [item(0), item(1)])
    expect(progress.done.size).toBe(0)
    expect(md.results.doneKeys().size).toBe(0)
  })

  it('a record under another spelling of a key (01@, 1.02) counts nowhere: settlement matches the canonical spelling only', async () => {
    const { a, progress, md, map } = await watched(1)
    const slot = resultSlot(a.peerId)
    map.set(`01@0.5/${slot}`, a.sign(`${resultScope(JOB)}/01@0.5`, TurnResults.encode({ items: [item(0), item(1)] })))
    map.set(`1.01/${slot}`, a.sign(`${resultScope(JOB)}/1.01`, ResultRecord.encode(item(1))))
    map.set(`+1.0/${slot}`, a.sign(`${resultScope(JOB)}/+1.0`, ResultRecord.encode(item(0))))
    expect(progress.done.size).toBe(0)
    expect(md.results.doneKeys().size).toBe(0)
    expect(md.results.list(1, 0)).toEqual([])
    // the canonical spelling counts in both
    md.transact(1, () => { md.results.writeTurn(1, [item(0)]) })
    expect([...progress.done]).toEqual(['1.0'])
    expect(md.results.list(1, 0).map(r => r.signer)).toEqual([a.peerId])
  })

  it('transact on a MacroJob whose doc is not open is a typed error, not a write that goes nowhere', async () => {
    const { md } = await tables(await signer())
    expect(() => { md.transact(2, () => {}) }).toThrow(expect.objectContaining({ name: 'MacroDocNotOpenError' }))
  })

  it('ignores summaries that do not verify, name another size or another job, or a MacroJob the job does not have', async () => {
    const a = await signer()
    const verifier = recordVerifier()
    const job = new Y.Doc()
    const progress = new JobProgress({ verifier }, JOB, 4, size)
    progress.watchSummaries(job.getMap<Uint8Array>(SUMMARY_MAP))
    const summaries = job.getMap<Uint8Array>(SUMMARY_MAP)
    const text = (t: string): Uint8Array => new TextEncoder().encode(t)
    summaries.set('0', a.sign(`${summaryScope(JOB)}/0`, text('1')))
    summaries.set('1', a.sign(`${summaryScope('0x' + 'cd'.repeat(32))}/1`, text('2')))
    summaries.set('5', a.sign(`${summaryScope(JOB)}/5`, text('0')))
    const forged = a.sign(`${summaryScope(JOB)}/0`, text('2'))
    forged[forged.length - 1] ^= 0xff
    summaries.set('0', forged)
    expect(progress.summarized(0)).toBe(false)
    expect(progress.summarized(1)).toBe(false)
    expect(progress.summarized(5)).toBe(false)
    expect(progress.shown()).toBe(0)
  })

  it('the doc guard keeps a valid summary from being replaced by junk, and lets another valid one replace it', async () => {
    const [a, b] = [await signer(), await signer()]
    const guard = coordGuards()(ROUND_DOC)!
    const doc = new Y.Doc()
    const valid = (s: RecordSigner): Uint8Array => s.sign(`${summaryScope(JOB)}/0`, new TextEncoder().encode('2'))
    const change = (oldValue: unknown, newValue: unknown) => ({ map: SUMMARY_MAP, key: '0', action: 'update' as const, oldValue, newValue })
    expect(guard.allows(change(valid(a), new Uint8Array([1, 2, 3])), doc)).toBe(false)
    expect(guard.allows(change(valid(a), valid(b)), doc)).toBe(true)
    expect(guard.allows({ map: SUMMARY_MAP, key: '0', action: 'delete', oldValue: valid(a), newValue: undefined }, doc)).toBe(false)
    // a MacroJob's doc gets its round's rules: a valid result cannot be deleted or replaced by junk there either
    const macroGuard = coordGuards()(macroDocName(ROUND_DOC, 3))!
    const m3 = new Y.Doc()
    resultTable({ signer: a, verifier: recordVerifier() }, m3.getMap<Uint8Array>(RESULTS_MAP), JOB).writeTurn(3, [item(0)])
    const [[key, value]] = [...m3.getMap<Uint8Array>(RESULTS_MAP).entries()]
    expect(macroGuard.allows({ map: RESULTS_MAP, key, action: 'delete', oldValue: value, newValue: undefined }, m3)).toBe(false)
    expect(macroGuard.allows({ map: RESULTS_MAP, key, action: 'update', oldValue: value, newValue: new Uint8Array([1]) }, m3)).toBe(false)

  })
})
