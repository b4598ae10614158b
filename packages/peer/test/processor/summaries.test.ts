import { afterEach, describe, expect, it } from 'vitest'
import { MACRO_MAP, RESULTS_MAP, SUMMARY_MAP, jobsTopic, leases, macroKey, macroScope, recordVerifier, resultTable, summaryScope } from '../../src/coord/index.js'
import type { TurnItem } from '../../src/coord/index.js'
import { jobDocName, macroDocName } from '../../src/crdt/index.js'
import { recordSigner } from '../../src/coord/signing.js'
import { heldDone, startPeers, stopPeers, testExecutor, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
})

/**
 * 4 peers: a liar (its processor not started) and 3 honest ones (started, meshed on /jobs), whose MicroJob runs are
 * counted; a job of 3 MacroJobs of 8 MicroJobs, not announced yet.
 */
async function liarAndHonestPeers (): Promise<{ liar: TestPeer, honest: TestPeer[], runs: Map<string, number>, job: ReturnType<typeof testJob> }> {
  peers = await startPeers(4, { executor: testExecutor({ workMs: 5 }) })
  const [liar, ...honest] = peers
  const runs = new Map<string, number>()
  for (const p of honest) {
    p.processor.addEventListener('microjob:done', (evt) => {
      const key = `${evt.detail.macroIndex}.${evt.detail.index}`
      runs.set(key, (runs.get(key) ?? 0) + 1)
    })
  }
  await Promise.all(honest.map(async p => p.processor.start()))
  await waitForMesh(honest, jobsTopic())
  return { liar, honest, runs, job: testJob(3, 8) }
}

describe('MacroJob summaries', () => {
  it('summaries of every MacroJob and results where nobody reads them, written before any work by a peer that did none, do not complete the job: its results do', async () => {
    const { liar, honest, runs, job } = await liarAndHonestPeers()
    // the liar holds the job doc before the job is announced: its summaries are there when the peers open it
    const doc = await liar.docs.open(jobDocName(job.jobId))
    const sign = recordSigner(liar.node.privateKey, liar.id)
    doc.transact(() => {
      for (let m = 0; m < 3; m++) doc.getMap<Uint8Array>(SUMMARY_MAP).set(String(m), sign.sign(`${summaryScope(job.jobId)}/${m}`, new TextEncoder().encode('8')))
    })
    // and validly signed results of every MicroJob where nobody reads them: the job doc's `results` map, and
    // MacroJob 1's and 2's in MacroJob 0's doc (before the doc per MacroJob, the job doc's map was the one read)
    const fake = (): TurnItem[] => Array.from({ length: 8 }, (_, index) => ({ index, term: 0xffff_ffff, outputHash: new Uint8Array(32), size: 1 }))
    const verifier = recordVerifier()
    doc.transact(() => { for (let m = 0; m < 3; m++) resultTable({ signer: sign, verifier }, doc.getMap<Uint8Array>(RESULTS_MAP), job.jobId).writeTurn(m, fake()) })
    const m0 = await liar.docs.open(macroDocName(jobDocName(job.jobId), 0))
    m0.transact(() => { for (const m of [1, 2]) resultTable({ signer: sign, verifier }, m0.getMap<Uint8Array>(RESULTS_MAP), job.jobId).writeTurn(m, fake()) })
    const completed = new Set<string>()
    for (const p of honest) p.processor.addEventListener('job:complete', () => { completed.add(p.id) })
    await honest[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => completed.size === honest.length, { timeoutMs: 30_000, what: 'job:complete on every honest peer' })
    // every MicroJob ran, and every honest peer holds a result for each (the MacroJob docs it opened to check)
    expect(runs.size).toBe(24)
    await waitFor(() => honest.every(p => heldDone(p.docs, job.jobId, 3).size === 24), { timeoutMs: 10_000, what: 'every result on every peer' })
  }, 60_000)

  it('summaries of MacroJobs their writer also claimed end the job where their docs are not held, until the check reads the docs: then it is worked on again', async () => {
    const { liar, honest, runs, job } = await liarAndHonestPeers()
    // the liar claims every MacroJob's lease (6 s long, not renewed) and summarizes every MacroJob, before the job
    // is announced: a claimed MacroJob's summary is believed by a peer that does not hold its doc (while the lease
    // runs: 3 s ran out before the peers' first look on a loaded machine, four test files at a time)
    const doc = await liar.docs.open(jobDocName(job.jobId))
    const sign = recordSigner(liar.node.privateKey, liar.id)
    const table = leases({ signer: sign, verifier: recordVerifier() }, { leaseMs: 6_000, settleMs: 10 }).table(doc.getMap<Uint8Array>(MACRO_MAP), macroScope(job.jobId))
    for (let m = 0; m < 3; m++) await table.claim(macroKey(m), { signal: AbortSignal.timeout(5_000) })
    doc.transact(() => {
      for (let m = 0; m < 3; m++) doc.getMap<Uint8Array>(SUMMARY_MAP).set(String(m), sign.sign(`${summaryScope(job.jobId)}/${m}`, new TextEncoder().encode('8')))
    })
    // each honest peer holds the liar's claims and summaries when it learns the job (a peer whose first catch-up
    // answer came from another honest peer, on a loaded machine, saw an empty doc and claimed a MacroJob itself)
    await Promise.all(honest.map(async p => {
      const held = await p.docs.open(jobDocName(job.jobId))
      await waitFor(() => held.getMap(SUMMARY_MAP).size === 3 && held.getMap(MACRO_MAP).size === 3, { what: 'the liar\'s claims and summaries' })
    }))
    // job:complete per honest peer, with the MicroJobs run by then
    const completions = new Map<string, number[]>()
    for (const p of honest) p.processor.addEventListener('job:complete', () => { completions.set(p.id, [...completions.get(p.id) ?? [], runs.size]) })
    await honest[0].processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => completions.size === honest.length, { timeoutMs: 30_000, what: 'job:complete on every honest peer' })
    expect([...completions.values()].map(c => c[0])).toEqual([0, 0, 0])
    // 1 s later (`summaryCheckMs` in the testkit) each reads the docs, finds no result there and works on the job
    // again (once the liar's leases ran out), until it ends with every MicroJob run once
    await waitFor(() => honest.every(p => (completions.get(p.id) ?? []).length === 2), { timeoutMs: 40_000, what: 'the job ended again on every honest peer' })
    expect(runs.size).toBe(24)
    expect([...runs.values()].every(n => n === 1)).toBe(true)
    expect(honest.every(p => p.processor.knownJobs().find(j => j.jobId === job.jobId)?.state === 'complete')).toBe(true)
  }, 60_000)
})
