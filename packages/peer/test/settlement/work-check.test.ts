import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { testExecutor } from '@jobmesh/testkit'
import { outputHash } from '../../src/executor/index.js'
import { workTag } from '../../src/protocol/index.js'
import { rawOutputCid } from '../../src/storage/index.js'
import { checkWork } from '../../src/settlement/work-check.js'
import type { Result } from '../../src/coord/index.js'
import type { JobSpec } from '../../src/protocol/index.js'
import type { ManifestEntry } from '../../src/settlement/index.js'
import type { RoundRecords } from '../../src/settlement/sample.js'

const JOB_ID = '0x' + '42'.repeat(32)
const wallet = (b: number): string => '0x' + b.toString(16).padStart(2, '0').repeat(20)
const spec = {} as unknown as JobSpec
const executor = testExecutor()
const signal = AbortSignal.timeout(10_000)
/** An output hash, and an execution digest, that no run gives. */
const JUNK = '0x' + 'dd'.repeat(32)

/**
 * Payees from the registry only (no profiles): PeerId `p<n>` pays `wallet(n)`, `p0` is registered by nobody; each
 * wallet has 100 wei of free stake, but `wallet(1)` stakes 1 wei, `wallet(5)` has all but 5 wei locked (bonds of other
 * submissions), and `wallet(4)` (asked to exit) and `wallet(6)` (kicked out) have none, as the registry counts it;
 * every wallet joined the job but `wallet(12)`.
 */
const components = (stored: Uint8Array[], runs: string[]): Parameters<typeof checkWork>[0] => ({
  docs: { open: async () => new Y.Doc() },
  chain: {
    peerAddress: async (peerId: string) => peerId === 'p0' ? undefined : wallet(Number(peerId.slice(1))),
    hasJoined: async (_jobId: string, address: string) => address.toLowerCase() !== wallet(12),
    // as the registry's: 0 for a node that is exiting or kicked out
    freeStake: async (address: string) => [wallet(4), wallet(6)].includes(address) ? 0n : address === wallet(1) ? 1n : address === wallet(5) ? 5n : 100n
  },
  executor: { run: async (task, options) => { runs.push(`${task.macroIndex}.${task.index}`); return await executor.run(task, options) } },
  store: { addOutput: async (bytes: Uint8Array) => { stored.push(bytes); return 'cid' } }
}) as unknown as Parameters<typeof checkWork>[0]

/** MicroJob `index` of MacroJob 0, its true output and execution digest (the test executor's). */
async function microJob (index: number): Promise<{ d: { microId: string, macroIndex: number, index: number, start: number, end: number }, hash: string, digest: string }> {
  const d = { microId: '0x' + (index + 1).toString(16).padStart(64, '0'), macroIndex: 0, index, start: index, end: index + 1 }
  const run = await executor.run({ jobId: JOB_ID, spec, ...d }, { signal })
  return { d, hash: outputHash(run.output), digest: run.digest }
}

function result (signer: string, term: number, hash: string, digest: string): Result {
  return { signer, term, outputHash: Buffer.from(hash.slice(2), 'hex'), size: 32, workTag: workTag(digest, signer) }
}

/** The manifest entry the counting result (highest term) gives. */
function entry (d: { microId: string, macroIndex: number, index: number, start: number, end: number }, r: Result): ManifestEntry {
  const hash = '0x' + Buffer.from(r.outputHash).toString('hex')
  return { ...d, outputHash: hash, outputCid: rawOutputCid(hash), size: r.size, signer: r.signer, payee: wallet(Number(r.signer.slice(1))) }
}

function records (results: Map<number, Result[]>): RoundRecords {
  return { of: async (d) => ({ all: results.get(d.index) ?? [], counting: undefined }), writeOwn: async () => {} }
}

/** `checkWork` on the test's chain with one re-run at a time (the order of the re-runs is then the entries'). */
async function checkOneAtATime (results: Map<number, Result[]>, entries: ManifestEntry[]): Promise<{ checked: Awaited<ReturnType<typeof checkWork>>, runs: string[] }> {
  const runs: string[] = []
  const checked = await checkWork(components([], runs), records(results), JOB_ID, spec, entries, { signal, self: { signer: 'p9', payee: wallet(9) }, bond: 1n, concurrency: 1 })
  return { checked, runs }
}

describe('who ran a contested MicroJob (settlement/work-check.ts)', () => {
  it('pays the peer whose work tag checks, not a copier with a higher term; leaves uncontested ones alone; stands in when nobody ran it', async () => {
    const [a, b, c, e] = await Promise.all([0, 1, 2, 3].map(microJob))
    const honestA = result('p1', 1, a.hash, a.digest)
    const copyA = result('p6', 0xffffffff, a.hash, JUNK)
    const rivalC = result('p3', 2, c.hash, c.digest)
    const copiesE = [result('p6', 5, e.hash, JUNK), result('p7', 4, e.hash, JUNK)]
    const results = new Map<number, Result[]>([
      [0, [honestA, copyA]], // hijacked: the copier's record counted
      [1, [result('p2', 1, b.hash, b.digest)]], // one signer with its tag: not re-run
      [2, [result('p1', 1, c.hash, c.digest), rivalC]], // two real runs (rival queues): the counting one stays
      [3, copiesE] // only copies (the original's signer excluded from the round): this node stands in
    ])
    const entries = [entry(a.d, copyA), entry(b.d, results.get(1)![0]), entry(c.d, rivalC), entry(e.d, copiesE[0])]
    const stored: Uint8Array[] = []
    const runs: string[] = []
    const checked = await checkWork(components(stored, runs), records(results), JOB_ID, spec, entries, { signal, self: { signer: 'p9', payee: wallet(9) }, bond: 1n })

    expect(runs).toEqual(['0.0', '0.2', '0.3'])
    expect(checked.rerun).toBe(3)
    expect(stored).toHaveLength(3)
    expect(checked.entries.map(x => [x.signer, x.payee])).toEqual([['p1', wallet(1)], ['p2', wallet(2)], ['p3', wallet(3)], ['p9', wallet(9)]])
    expect(checked.entries.map(x => x.outputHash)).toEqual([a.hash, b.hash, c.hash, e.hash])
    expect(checked.own).toEqual([{ ...entry(e.d, copiesE[0]), signer: 'p9', payee: wallet(9), workTag: workTag(e.digest, 'p9') }])
    expect(checked.copiers.sort()).toEqual(['p6', 'p7'])
  })

  it('a copier caught once has its other copies set aside without a re-run', async () => {
    const micro = await Promise.all([0, 1, 2].map(microJob))
    const results = new Map<number, Result[]>(micro.map(({ hash, digest }, i) =>
      [i, [result(`p${i + 1}`, 1, hash, digest), result('p6', 0xffffffff, hash, JUNK)]]))
    const entries = micro.map(({ d }, i) => entry(d, results.get(i)![1]))
    const { checked, runs } = await checkOneAtATime(results, entries)
    expect(runs).toEqual(['0.0'])
    expect(checked.rerun).toBe(1)
    expect(checked.copiers).toEqual(['p6'])
    expect(checked.entries.map(x => x.signer)).toEqual(['p1', 'p2', 'p3'])
    expect(checked.own).toEqual([])
  })

  it('a signer of wrong outputs beside every honest result costs one re-run, not one per MicroJob', async () => {
    // a registered node writes a term-0 result with junk output for every MicroJob: it never counts, but a second
    // signer contests each MicroJob; before, the finalizer re-ran the whole job before it could submit
    const micro = await Promise.all([0, 1, 2, 3].map(microJob))
    const HONEST = ['p1', 'p2', 'p3', 'p7'] // registered, staked and not exiting: uncontested but for the junk
    const results = new Map<number, Result[]>(micro.map(({ hash, digest }, i) =>
      [i, [result(HONEST[i], 1, hash, digest), result('p5', 0, JUNK, JUNK)]]))
    const entries = micro.map(({ d }, i) => entry(d, results.get(i)![0]))
    const { checked, runs } = await checkOneAtATime(results, entries)
    expect(runs).toEqual(['0.0'])
    expect(checked.rerun).toBe(1)
    expect(checked.fakers).toEqual(['p5'])
    expect(checked.copiers).toEqual([])
    expect(checked.entries.map(x => [x.signer, x.outputHash])).toEqual(micro.map(({ hash }, i) => [HONEST[i], hash]))
    expect(checked.own).toEqual([])
  })

  it('a faker caught once is not paid where it signed alone: this node\'s re-run stands in', async () => {
    const micro = await Promise.all([0, 1].map(microJob))
    const fake = result('p5', 3, JUNK, JUNK)
    const results = new Map<number, Result[]>([
      [0, [result('p1', 1, micro[0].hash, micro[0].digest), result('p5', 2, JUNK, JUNK)]], // caught here
      [1, [fake]] // its only record of MicroJob 1, with a tag of its own making: checked by a re-run, not paid
    ])
    const entries = [entry(micro[0].d, results.get(0)![1]), entry(micro[1].d, fake)]
    const { checked, runs } = await checkOneAtATime(results, entries)
    expect(runs).toEqual(['0.0', '0.1'])
    expect(checked.entries.map(x => [x.signer, x.outputHash])).toEqual([['p1', micro[0].hash], ['p9', micro[1].hash]])
    expect(checked.own.map(o => o.index)).toEqual([1])
  })

  it('without an executor the entries stay as recorded', async () => {
    const a = await microJob(0)
    const copy = result('p6', 9, a.hash, JUNK)
    const results = new Map([[0, [result('p1', 1, a.hash, a.digest), copy]]])
    const { executor: _, ...rest } = components([], [])
    const checked = await checkWork(rest, records(results), JOB_ID, spec, [entry(a.d, copy)], { signal, self: { signer: 'p9', payee: wallet(9) }, bond: 1n })
    expect(checked.entries).toEqual([entry(a.d, copy)])
    expect(checked.rerun).toBe(0)
  })

  it('pays nobody the submission could not name: a signer no wallet registered, whose wallet cannot lock the bond, is exiting, was kicked out or did not join the job', async () => {
    const micro = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(microJob))
    const results = new Map<number, Result[]>([
      [0, [result('p0', 1, micro[0].hash, micro[0].digest)]], // registered by nobody: its fake would be the submitter's
      [1, [result('p1', 1, micro[1].hash, micro[1].digest)]], // 1 wei of stake against a bond of 10
      [2, [result('p1', 2, micro[2].hash, micro[2].digest), result('p2', 1, micro[2].hash, micro[2].digest)]],
      [3, [result('p3', 1, micro[3].hash, micro[3].digest)]],
      // honest work, but its wallet is leaving: the escrow cannot lock its bond, so the submission cannot name it
      [4, [result('p4', 1, micro[4].hash, micro[4].digest)]],
      // staked enough, but its bonds in other submissions leave 5 wei free: naming it would revert the submission
      [5, [result('p5', 1, micro[5].hash, micro[5].digest)]],
      [6, [result('p6', 1, micro[6].hash, micro[6].digest)]],
      // it never joined the job on chain: the escrow refuses to name it (PayeeNotJoined)
      [7, [result('p12', 1, micro[7].hash, micro[7].digest)]]
    ])
    const entries = micro.map(({ d }, i) => entry(d, results.get(i)![0]))
    const runs: string[] = []
    const checked = await checkWork(components([], runs), records(results), JOB_ID, spec, entries, { signal, self: { signer: 'p9', payee: wallet(9) }, bond: 10n, joinGraceMs: 0 })
    // re-run: those whose counting signer cannot be paid; this node stands in where no payable signer ran it
    expect(runs).toEqual(['0.0', '0.1', '0.2', '0.4', '0.5', '0.6', '0.7'])
    expect(checked.entries.map(x => x.signer)).toEqual(['p9', 'p9', 'p2', 'p3', 'p9', 'p9', 'p9', 'p9'])
    expect(checked.own.map(x => x.index)).toEqual([0, 1, 4, 5, 6, 7])
    // with a bond of 1 wei, a signer with any free stake is paid (the unregistered, the exiting and the kicked out,
    // whose free stake is 0, and the one that did not join are re-run)
    const again: string[] = []
    const plain = await checkWork(components([], again), records(results), JOB_ID, spec, entries, { signal, self: { signer: 'p9', payee: wallet(9) }, bond: 1n, joinGraceMs: 0 })
    expect(again).toEqual(['0.0', '0.2', '0.4', '0.6', '0.7'])
    expect(plain.entries.map(x => x.signer)).toEqual(['p9', 'p1', 'p1', 'p3', 'p9', 'p5', 'p9', 'p9'])
  })

  it('pays nobody the submission leaves out past the cap of payees: their MicroJobs are re-run and this node stands in', async () => {
    const micro = await Promise.all([0, 1, 2].map(microJob))
    const results = new Map<number, Result[]>([
      [0, [result('p2', 1, micro[0].hash, micro[0].digest)]],
      [1, [result('p3', 1, micro[1].hash, micro[1].digest)]],
      [2, [result('p2', 1, micro[2].hash, micro[2].digest)]]
    ])
    const entries = micro.map(({ d }, i) => entry(d, results.get(i)![0]))
    const runs: string[] = []
    const checked = await checkWork(components([], runs), records(results), JOB_ID, spec, entries, { signal, self: { signer: 'p9', payee: wallet(9) }, bond: 10n, leaveOut: new Set([wallet(3)]) })
    expect(runs).toEqual(['0.1'])
    expect(checked.entries.map(x => x.signer)).toEqual(['p2', 'p9', 'p2'])
  })

  it('waits, within the grace, for a join its RPC does not show yet: a processor whose join it sees late is paid, one that never joins is not', async () => {
    const micro = await Promise.all([0, 1].map(microJob))
    const results = new Map<number, Result[]>([
      [0, [result('p2', 1, micro[0].hash, micro[0].digest)]],
      [1, [result('p12', 1, micro[1].hash, micro[1].digest)]]
    ])
    const entries = micro.map(({ d }, i) => entry(d, results.get(i)![0]))
    // p2's join is mined at the third read; p12 never joins
    const reads = new Map<string, number>()
    const base = components([], [])
    const runs: string[] = []
    const slow = {
      ...base,
      chain: {
        ...base.chain,
        hasJoined: async (_jobId: string, address: string) => {
          const key = address.toLowerCase()
          const n = (reads.get(key) ?? 0) + 1
          reads.set(key, n)
          return key === wallet(2) && n >= 3
        }
      },
      executor: { run: async (task, options) => { runs.push(`${task.macroIndex}.${task.index}`); return await executor.run(task, options) } }
    } as unknown as Parameters<typeof checkWork>[0]
    const checked = await checkWork(slow, records(results), JOB_ID, spec, entries, { signal, self: { signer: 'p9', payee: wallet(9) }, bond: 1n, joinGraceMs: 4_000 })
    expect(checked.entries.map(x => x.signer)).toEqual(['p2', 'p9'])
    expect(runs).toEqual(['0.1'])
    expect(reads.get(wallet(2))).toBe(3)
    // the grace is one deadline for the whole check, not one per signer: p12 waited out what p2 left of it (read
    // about three times; a grace of its own would have read it five times)
    expect(reads.get(wallet(12))).toBeLessThanOrEqual(4)
  })
})
