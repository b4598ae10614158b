import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ResultBatch } from '../../src/processor/result-batch.js'
import type { FinishedMicroJob } from '../../src/processor/result-batch.js'

function finished (index: number, macroIndex = 0): FinishedMicroJob {
  return { macroIndex, index, leaseTerm: 3, outputHash: new Uint8Array(32).fill(index), size: 4 }
}

/** A batch over recording fakes: what each transaction wrote and dropped. */
function harness (flushMs = 1_000): { batch: ResultBatch, transactions: string[][], reported: number[][], lease(key: string): void } {
  const transactions: string[][] = []
  const reported: number[][] = []
  let current: string[] | undefined
  const batch = new ResultBatch({
    transact: (m, fn) => { current = [`doc ${m}`]; fn(); transactions.push(current); current = undefined },
    results: {
      writeTurn: (m, items) => {
        if (current == null) throw new Error('write outside a transaction')
        current.push(`results ${m}: ${items.map(r => `${r.index} term ${r.term}`).join(', ')}`)
      }
    },
    microLeases: { drop: (key, term) => { if (current == null) throw new Error('drop outside a transaction'); current.push(`drop ${key} term ${term}`) } }
  }, { flushMs, onWritten: (written) => { reported.push(written.map(f => f.index)) } })
  const lease = (key: string): void => { if (current == null) throw new Error('lease outside a transaction'); current.push(`lease ${key}`) }
  return { batch, transactions, reported, lease }
}

describe('ResultBatch', () => {
  beforeEach(() => { vi.useFakeTimers() })
  afterEach(() => { vi.useRealTimers() })

  it('writes a turn\'s results as one record and drops their leases in one transaction at the end of the turn', () => {
    const { batch, transactions, reported } = harness()
    batch.add(finished(0))
    batch.add(finished(1))
    expect(transactions).toEqual([])
    expect(batch.flush().map(f => f.index)).toEqual([0, 1])
    expect(transactions).toEqual([['doc 0', 'results 0: 0 term 3, 1 term 3', 'drop 0.0 term 3', 'drop 0.1 term 3']])
    expect(reported).toEqual([[0, 1]])
    expect(batch.size).toBe(0)
    // nothing left: a second flush writes nothing and reports nothing
    batch.flush()
    expect(transactions).toHaveLength(1)
    expect(reported).toHaveLength(1)
  })

  it('writes the next batch\'s leases in the same transaction as the finished results (one CRDT update per turn)', () => {
    const { batch, transactions, reported, lease } = harness()
    batch.add(finished(0))
    batch.add(finished(1))
    batch.flush({ macroIndex: 0, fn: () => { lease('0.2'); lease('0.3') } })
    expect(transactions).toEqual([['doc 0', 'results 0: 0 term 3, 1 term 3', 'drop 0.0 term 3', 'drop 0.1 term 3', 'lease 0.2', 'lease 0.3']])
    expect(reported).toEqual([[0, 1]])
    // nothing unwritten: the leases still go in, in a transaction of their own, and nothing is reported
    batch.flush({ macroIndex: 0, fn: () => { lease('0.4') } })
    expect(transactions).toEqual([transactions[0], ['doc 0', 'lease 0.4']])
    expect(reported).toHaveLength(1)
  })

  it('results of two MacroJobs in one flush are two records, one per MacroJob, each in a transaction of its MacroJob\'s doc', () => {
    const { batch, transactions } = harness()
    batch.add(finished(5, 1))
    batch.add(finished(0, 2))
    batch.add(finished(6, 1))
    batch.flush()
    expect(transactions).toEqual([['doc 1', 'results 1: 5 term 3, 6 term 3', 'drop 1.5 term 3', 'drop 1.6 term 3'], ['doc 2', 'results 2: 0 term 3', 'drop 2.0 term 3']])
  })

  it('a lock of another MacroJob than the unwritten results goes into that MacroJob\'s doc, in a transaction of its own', () => {
    const { batch, transactions, reported, lease } = harness()
    batch.add(finished(0, 1))
    batch.flush({ macroIndex: 2, fn: () => { lease('2.4') } })
    expect(transactions).toEqual([['doc 1', 'results 1: 0 term 3', 'drop 1.0 term 3'], ['doc 2', 'lease 2.4']])
    expect(reported).toEqual([[0]])
  })

  it('writes by itself once the oldest unwritten result is flushMs old (a long MicroJob after short ones)', () => {
    const { batch, transactions, reported } = harness(1_000)
    batch.add(finished(0))
    vi.advanceTimersByTime(600)
    batch.add(finished(1))
    expect(transactions).toEqual([])
    vi.advanceTimersByTime(400)
    expect(reported).toEqual([[0, 1]])
    // the next result starts a new window
    batch.add(finished(2))
    vi.advanceTimersByTime(999)
    expect(reported).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(reported).toEqual([[0, 1], [2]])
    expect(transactions).toHaveLength(2)
  })

  it('an explicit flush cancels the timer (no empty or second write)', () => {
    const { batch, transactions } = harness(1_000)
    batch.add(finished(0))
    batch.flush()
    vi.advanceTimersByTime(5_000)
    expect(transactions).toHaveLength(1)
  })

  it('discard (a crash) writes nothing: the leases stay and run out, so others redo the MicroJobs', () => {
    const { batch, transactions, reported } = harness(1_000)
    batch.add(finished(0))
    batch.discard()
    vi.advanceTimersByTime(5_000)
    batch.flush()
    expect(transactions).toEqual([])
    expect(reported).toEqual([])
  })

  it('writes a result before half of what is left of its lease has passed, when that comes before the flush window', () => {
    const transactions: string[][] = []
    const expiresAt = new Map([['0.1', 1_000], ['0.2', 600]])
    const batch = new ResultBatch({
      transact: (m, fn) => { transactions.push([`doc ${m}`]); fn() },
      results: { writeTurn: (_m, items) => { transactions[transactions.length - 1].push(...items.map(r => `result ${r.index}`)) } },
      microLeases: { drop: () => {}, get: (key) => { const at = expiresAt.get(key); return at == null ? undefined : { owner: 'me', term: 3, expiresAt: at } } },
      clock: () => Date.now()
    }, { flushMs: 3_000, onWritten: () => {} })
    vi.setSystemTime(0)
    batch.add(finished(0)) // no lease known: the flush window
    batch.add(finished(1)) // 1 000 ms of lease left: written by 500
    vi.advanceTimersByTime(200)
    batch.add(finished(2)) // 400 ms left: written by 400
    vi.advanceTimersByTime(199)
    expect(transactions).toEqual([])
    vi.advanceTimersByTime(1)
    expect(transactions).toEqual([['doc 0', 'result 0', 'result 1', 'result 2']])
    // the next one waits the flush window again
    batch.add(finished(3))
    vi.advanceTimersByTime(2_999)
    expect(transactions).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(transactions).toHaveLength(2)
  })
})
