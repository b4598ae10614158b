import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { FAILURES_MAP, FailureRecord, JobFailures, MAX_FAILURE_DETAIL_CHARS, failureScope, jobsTopic, microKey, recordSigner, recordVerifier, resultKey, resultSlot } from '../../src/coord/index.js'
import { jobDocName } from '../../src/crdt/index.js'
import { ExecutionTimeoutError, WasmTrapError } from '../../src/executor/index.js'
import { createProcessor, runTimeoutMs } from '../../src/processor/index.js'
import { itemFailed, jobFailedInCrdt } from '../../src/processor/poison.js'
import { checkRun } from '../../src/processor/turns.js'
import type { JobContext } from '../../src/processor/job-context.js'
import type { LockedItem } from '../../src/coord/index.js'
import type { MicroJobExecutor } from '../../src/executor/index.js'
import { heldResults, startPeers, stopPeers, testExecutor, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'

let peers: TestPeer[] = []

/** `healthy`, but every run of `jobId` throws `error()`. */
function failingOn (jobId: string, healthy: MicroJobExecutor, error: () => Error): MicroJobExecutor {
  return {
    ...healthy,
    async run (task, options) {
      if (task.jobId === jobId) throw error()
      return await healthy.run(task, options)
    }
  }
}

afterEach(async () => {
  await stopPeers(peers)
  peers = []
})

describe('poison isolation', () => {
  it('a job whose MicroJobs fail everywhere ends failed, and the processors go on with the healthy job', async () => {
    const poison = testJob(2, 4)
    const honest = testJob(2, 4)
    const executor = failingOn(poison.jobId, testExecutor({ workMs: 5 }), () => new WasmTrapError('unreachable'))
    peers = await startPeers(3, { executor })
    const failedEvents = new Map<string, string[]>()
    const attempts: string[] = []
    for (const p of peers) {
      p.processor.addEventListener('job:failed', (evt) => {
        failedEvents.set(p.id, evt.detail.reasons)
      })
      p.processor.addEventListener('microjob:error', (evt) => { attempts.push(`${evt.detail.jobId}/${evt.detail.macroIndex}.${evt.detail.index}`) })
    }
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    // the poison job is announced first and is worth more: every peer goes for it first
    poison.spec.price = honest.spec.price * 10n
    const complete = new Set<string>()
    for (const p of peers) p.processor.addEventListener('job:complete', (evt) => { if (evt.detail.jobId === honest.jobId) complete.add(p.id) })
    await peers[0].processor.announceJob(poison.spec, poison.jobId, poison.specCid)
    await peers[1].processor.announceJob(honest.spec, honest.jobId, honest.specCid)
    await waitFor(() => complete.size === peers.length, { timeoutMs: 30_000, what: 'every peer to complete the honest job' })
    await waitFor(() => failedEvents.size === peers.length, { timeoutMs: 20_000, what: 'every peer gave the poison job up' })
    expect([...failedEvents.values()].every(r => r.includes('WasmTrapError'))).toBe(true)
    // bounded: a handful of attempts, not one per MicroJob per peer forever
    expect(attempts.filter(a => a.startsWith(poison.jobId)).length).toBeLessThanOrEqual(3 * peers.length)
    for (const p of peers) {
      expect(p.processor.knownJobs().find(j => j.jobId === poison.jobId)?.state).toBe('failed')
      expect(p.processor.knownJobs().find(j => j.jobId === honest.jobId)?.state).toBe('complete')
      // any reader (the SDK does the same) sees the failed state in the CRDT
      const doc = p.docs.get(jobDocName(poison.jobId))
      expect(doc).toBeDefined()
      await waitFor(() => new JobFailures({ verifier: recordVerifier() }, doc!.getMap(FAILURES_MAP), poison.jobId).failed, { timeoutMs: 10_000, what: 'failed state synced' })
      // and no result, in the MacroJob docs this peer joined (where results live)
      expect(heldResults(p.docs, poison.jobId, 2).every(map => map.size === 0)).toBe(true)
    }
    // the peers did join the poison job's rooms (the check above reads their MacroJob docs)
    expect(peers.some(p => heldResults(p.docs, poison.jobId, 2).length > 0)).toBe(true)
  })

  it('a peer whose own runs of a job fail gives it up; the other completes it, and then it lists the job complete', async () => {
    const job = testJob(2, 8)
    const healthy = testExecutor({ workMs: 20 })
    // this peer's machine is too slow for the job: every run of it times out here, and only here
    const slow = failingOn(job.jobId, healthy, () => new ExecutionTimeoutError('run exceeded its bound'))
    const [a] = await startPeers(1, { executor: slow, localMaxFailures: 2 })
    const [b] = await startPeers(1, { executor: healthy })
    peers = [a, b]
    await a.node.libp2p.dial(b.node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    const ended: { gaveUp?: string, completed: boolean } = { completed: false }
    // its state as it gives the job up
    a.processor.addEventListener('job:failed', () => { ended.gaveUp = a.processor.knownJobs().find(j => j.jobId === job.jobId)?.state })
    b.processor.addEventListener('job:complete', () => { ended.completed = true })
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    await a.processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => ended.gaveUp, { timeoutMs: 20_000, what: 'the slow peer to give the job up' })
    expect(ended.gaveUp).toBe('failed')
    await waitFor(() => ended.completed, { timeoutMs: 20_000, what: 'the other peer to complete the job' })
    await waitFor(() => a.processor.knownJobs().find(j => j.jobId === job.jobId)?.state === 'complete',
      { timeoutMs: 20_000, what: 'the peer that gave the job up to see it completed' })
    expect(b.processor.knownJobs().find(j => j.jobId === job.jobId)?.state).toBe('complete')
  })

  it('a peer that gave a job up does not run it again after a restart: its own failure records in the CRDT count', async () => {
    const job = testJob(2, 8)
    const runs: string[] = []
    // this peer's machine is too slow for the job: every run of it times out here
    const slow = failingOn(job.jobId, testExecutor({ workMs: 5 }), () => { runs.push(job.jobId); return new ExecutionTimeoutError('run exceeded its bound') })
    const [a] = await startPeers(1, { executor: slow, localMaxFailures: 2 })
    peers = [a]
    let gaveUp: boolean | undefined
    a.processor.addEventListener('job:failed', (evt) => { gaveUp = evt.detail.earlier === true })
    await a.processor.start()
    await a.processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => gaveUp !== undefined, { timeoutMs: 20_000, what: 'the peer to give the job up' })
    // a failure of its own runs now, not of a run before a restart
    expect(gaveUp).toBe(false)
    expect(runs).toHaveLength(2)

    // the process restarts: a new processor on the same node and doc store (which `jobmesh start` keeps on disk)
    await a.processor.stop()
    const restarted = createProcessor({ ...a.node, docs: a.docs, counters: a.counters }, {
      executor: slow, hardware: { gpuModel: 'cpu', vramGb: 8 }, heartbeatMs: 300, ownerTimeoutMs: 1_000,
      leases: { leaseMs: 3_000, renewMs: 1_000, skewMs: 200, settleMs: 50 }, localMaxFailures: 2
    })
    a.processor = restarted
    let failedAgain: { attempts: number, peers: number, earlier?: boolean } | undefined
    restarted.addEventListener('job:failed', (evt) => { failedAgain = evt.detail })
    await restarted.start()
    await waitFor(() => failedAgain, { timeoutMs: 20_000, what: 'the restarted peer to list the job given up' })
    // given up before the restart, which says so (an operator does not read it as a new failure)
    expect(failedAgain).toMatchObject({ attempts: 2, peers: 1, earlier: true })
    expect(restarted.knownJobs().find(j => j.jobId === job.jobId)?.state).toBe('failed')
    // no run of it after the restart (it ran the job twice more before)
    expect(runs).toHaveLength(2)
  })

  it('forged failure records do not make a peer give up a healthy job: it runs the named MicroJob itself, which works', async () => {
    const job = testJob(2, 32)
    const healthy = testExecutor({ workMs: 100 })
    // runs of the MicroJob the forged records name: once from the queue, and once per peer that checks the records
    let runsOfNamed = 0
    const executor: MicroJobExecutor = {
      ...healthy,
      async run (task, options) {
        if (task.macroIndex === 1 && task.index === 31) runsOfNamed++
        return healthy.run(task, options)
      }
    }
    peers = await startPeers(3, { executor })
    const failedEvents: string[] = []
    for (const p of peers) p.processor.addEventListener('job:failed', (evt) => { failedEvents.push(`${p.id} ${evt.detail.jobId}`) })
    await Promise.all(peers.map(async p => p.processor.start()))
    await waitForMesh(peers, jobsTopic())
    const state = (p: TestPeer): string | undefined => p.processor.knownJobs().find(j => j.jobId === job.jobId)?.state
    await peers[1].processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => peers[0].docs.get(jobDocName(job.jobId)) != null && state(peers[0]) === 'working', { timeoutMs: 10_000, what: 'peer 0 working on the job' })
    // two keys that never ran a MicroJob sign failures of MicroJob 1.31 (the last), one claiming 100 attempts, and
    // of MicroJobs the job does not have (a check run of one of those would throw)
    const doc = peers[0].docs.get(jobDocName(job.jobId))!
    for (const attempts of [100, 1]) {
      const key = await generateKeyPair('Ed25519')
      const signer = recordSigner(key, peerIdFromPrivateKey(key).toString())
      const forge = (m: number | string, i: number, n: number): void => {
        doc.getMap<Uint8Array>(FAILURES_MAP).set(`${m}.${i}/${resultSlot(signer.peerId)}`,
          signer.sign(`${failureScope(job.jobId)}/${m}.${i}`, FailureRecord.encode({ term: 1, attempts: n, reason: 'WasmTrapError' })))
      }
      forge(1, 31, attempts)
      forge(99, 0, 1000)
      forge('x', 0, 1000)
      forge(0, 32, 1000)
    }
    for (const p of peers) {
      const seen = p.docs.get(jobDocName(job.jobId))!
      const reader = new JobFailures({ verifier: recordVerifier() }, seen.getMap(FAILURES_MAP), job.jobId, { sizeOf: m => m < 2 ? 32 : 0 })
      await waitFor(() => reader.failed, { timeoutMs: 10_000, what: 'the forged failed state synced' }).finally(() => { reader.stop() })
    }
    // the forged state reached every peer while the job was still being worked on (32 x 100 ms over 3 peers)
    expect(peers.some(p => state(p) === 'working')).toBe(true)
    await waitFor(() => peers.every(p => state(p) === 'complete'), { timeoutMs: 30_000, what: 'every peer to complete the job' })
    expect(failedEvents).toEqual([])
    // the records were checked by a run, not ignored (the MicroJob itself ran once from the queue)
    expect(runsOfNamed).toBeGreaterThanOrEqual(2)
    // and only the job's own MicroJob counts
    const reader = new JobFailures({ verifier: recordVerifier() }, doc.getMap(FAILURES_MAP), job.jobId, { sizeOf: m => m < 2 ? 32 : 0 })
    expect(reader.failingMicroJobs()).toEqual(['1.31'])
    reader.stop()
  })

  it('JobFailures: a job fails after the bounded attempts from at least two peers; a peer only writes its own slot', async () => {
    const doc = new Y.Doc()
    const job = '0x' + '11'.repeat(32)
    const mk = async (): Promise<JobFailures> => {
      const key = await generateKeyPair('Ed25519')
      return new JobFailures({ signer: recordSigner(key, peerIdFromPrivateKey(key).toString()), verifier: recordVerifier() }, doc.getMap(FAILURES_MAP), job)
    }
    const [a, b] = [await mk(), await mk()]
    const reader = new JobFailures({ verifier: recordVerifier() }, doc.getMap(FAILURES_MAP), job)
    let failedEvents = 0
    reader.addEventListener('failed', () => { failedEvents++ })
    a.record(0, 0, 1, 'WasmTrapError')
    a.record(0, 0, 2, 'WasmTrapError')
    a.record(0, 1, 3, 'WasmTrapError')
    // three attempts, one peer: one broken peer cannot fail a job
    expect(reader.summary()).toMatchObject({ attempts: 3, peers: 1, failed: false })
    b.record(0, 0, 4, 'ExecutionTimeoutError')
    expect(reader.summary()).toEqual({ attempts: 4, peers: 2, reasons: ['ExecutionTimeoutError', 'WasmTrapError'], details: ['ExecutionTimeoutError', 'WasmTrapError'], failed: true })
    expect(failedEvents).toBe(1)
    // junk or a record in someone else's slot does not count
    doc.getMap(FAILURES_MAP).set('0.2/zzzzzzzz', new Uint8Array([1, 2, 3]))
    expect(reader.summary().attempts).toBe(4)
    // a record counts for at most the attempts after which a peer gives up alone, whatever it claims
    const other = new Y.Doc()
    const c = await generateKeyPair('Ed25519')
    const liar = recordSigner(c, peerIdFromPrivateKey(c).toString())
    other.getMap<Uint8Array>(FAILURES_MAP).set(resultKey(0, 3, liar.peerId),
      liar.sign(`${failureScope(job)}/${microKey(0, 3)}`, FailureRecord.encode({ term: 1, attempts: 1000, reason: 'WasmTrapError' })))
    expect(new JobFailures({ verifier: recordVerifier() }, other.getMap(FAILURES_MAP), job).summary()).toMatchObject({ attempts: 3, peers: 1 })
  })

  it('JobFailures: a failure says why (the error\'s message, cut short) beside its name; a record without one gives the name', async () => {
    const doc = new Y.Doc()
    const job = '0x' + '12'.repeat(32)
    const key = await generateKeyPair('Ed25519')
    const a = new JobFailures({ signer: recordSigner(key, peerIdFromPrivateKey(key).toString()), verifier: recordVerifier() }, doc.getMap(FAILURES_MAP), job)
    const reader = new JobFailures({ verifier: recordVerifier() }, doc.getMap(FAILURES_MAP), job)
    a.record(0, 0, 1, 'WasmTrapError', 'MicroJob 0.0 trapped: unreachable')
    a.record(0, 1, 1, 'WasmTrapError', 'MicroJob 0.1 trapped:\u001b[2J\nmemory access out of bounds ' + 'x'.repeat(400))
    const details = reader.summary().details
    expect(details[0]).toBe('WasmTrapError: MicroJob 0.0 trapped: unreachable')
    // one line (a line break would forge a line of the CLI's error), cut to its bound; other controls are network
    // text, escaped by the CLIs as they print it
    const message = 'MicroJob 0.1 trapped:\u001b[2J memory access out of bounds ' + 'x'.repeat(400)
    expect(details[1]).toBe(`WasmTrapError: ${message.slice(0, MAX_FAILURE_DETAIL_CHARS)}`)
    // a record of a peer before the field (no detail) gives its name alone; the names stay what the rules read
    const c = await generateKeyPair('Ed25519')
    const old = recordSigner(c, peerIdFromPrivateKey(c).toString())
    doc.getMap<Uint8Array>(FAILURES_MAP).set(resultKey(0, 2, old.peerId),
      old.sign(`${failureScope(job)}/${microKey(0, 2)}`, FailureRecord.encode({ term: 1, attempts: 1, reason: 'ExecutionTimeoutError' })))
    expect(reader.summary()).toMatchObject({ reasons: ['ExecutionTimeoutError', 'WasmTrapError'], details: ['ExecutionTimeoutError', ...details] })
  })

  it('with the CRDT failed, a fetch error of its own does not make a peer give up; an error of the module\'s own does', () => {
    const endHost = { completed: new Set<string>(), failed: new Set<string>(), doneElsewhere: new Set<string>(), clock: () => 0, dispatch: () => {} }
    const host = {
      failedAt: new Map<string, number>(), localFailures: new Map<string, number>(), decisive: new Set<string>(), clock: () => 0,
      localMaxFailures: 3, endHost, checkRun: async () => {}
    }
    const context = (jobId: string): JobContext => ({
      job: { jobId }, finalized: false, rooms: new Map(),
      failures: { failed: true, record: () => {}, summary: () => ({ attempts: 4, peers: 2, reasons: ['WasmTrapError'], failed: true }) }
    }) as unknown as JobContext
    const item = { macroIndex: 0, index: 0, leaseTerm: 1 } as unknown as LockedItem
    const fetchFailed = context('0xa')
    const err = (name: string): Error => Object.assign(new Error(name), { name })
    itemFailed(host, fetchFailed, item, err('ContentTimeoutError'))
    expect(fetchFailed.finalized).toBe(false)
    const trapped = context('0xb')
    itemFailed(host, trapped, item, err('WasmTrapError'))
    expect(trapped.finalized).toBe(true)
    expect([...endHost.failed]).toEqual(['0xb'])
    // a time limit used up in the queue bears it out too (a module that loops)
    const looped = context('0xc')
    itemFailed(host, looped, item, err('ExecutionTimeoutError'))
    expect(looped.finalized).toBe(true)
  })

  it('with the CRDT failed, a peer that never ran the job gives it up when its check run fails the way a queue run would bear out', async () => {
    const endHost = { completed: new Set<string>(), failed: new Set<string>(), doneElsewhere: new Set<string>(), clock: () => 0, dispatch: () => {} }
    const err = (name: string): Error => Object.assign(new Error(name), { name })
    const checked = async (checkError: Error | undefined): Promise<JobContext> => {
      let ran!: () => void
      const done = new Promise<void>(resolve => { ran = resolve })
      const host = {
        failedAt: new Map<string, number>(), localFailures: new Map<string, number>(), decisive: new Set<string>(), clock: () => 0,
        localMaxFailures: 3, endHost,
        checkRun: async () => {
          setImmediate(ran)
          if (checkError != null) throw checkError
        }
      }
      const ctx = {
        job: { jobId: `0x${checkError?.name ?? 'works'}` }, finalized: false, rooms: new Map(), progress: new Map(),
        failures: { failed: true, failingMicroJobs: () => ['0.1'], summary: () => ({ attempts: 4, peers: 2, reasons: ['ExecutionTimeoutError'], failed: true }) }
      } as unknown as JobContext
      jobFailedInCrdt(host, ctx)
      await done
      return ctx
    }
    // a module that loops: the check uses the whole time limit, as the runs of the peers that failed it did
    expect((await checked(err('ExecutionTimeoutError'))).finalized).toBe(true)
    expect((await checked(err('WasmTrapError'))).finalized).toBe(true)
    // not borne out: the network (a fetch), or the MicroJob runs here
    expect((await checked(err('ContentTimeoutError'))).finalized).toBe(false)
    expect((await checked(undefined)).finalized).toBe(false)
    expect([...endHost.failed].sort()).toEqual(['0xExecutionTimeoutError', '0xWasmTrapError'])
  })

  it('a check of a job the CRDT says failed runs under three times the queue\'s limit', async () => {
    let limit: number | undefined
    const executor = { run: async (_task: unknown, options: { timeoutMs?: number }) => { limit = options.timeoutMs; return { output: new Uint8Array(0) } } } as unknown as MicroJobExecutor
    const ctx = {
      job: { jobId: '0xa', spec: { estimate: { secondsPerMicroJob: 1 }, slicing: { microJobsPerMacro: 1 } } },
      slicing: { microJobs: [{ macroIndex: 0, index: 0, microId: '0x00', start: 0, end: 1 }] }
    } as unknown as JobContext
    await checkRun({ executor }, ctx, 0, 0, new AbortController().signal)
    // the queue's limit for an estimate of 1 s is 10 s: forged records naming a heavy MicroJob, checked beside this
    // peer's other runs, must not make it give a healthy job up for the load alone
    expect(limit).toBe(3 * runTimeoutMs({ estimate: { secondsPerMicroJob: 1 } }))
    await checkRun({ executor, runLimitMs: () => 4_000 }, ctx, 0, 0, new AbortController().signal)
    expect(limit).toBe(12_000)
  })

  it('bounds a run by the job estimate', () => {
    expect(runTimeoutMs({ estimate: { secondsPerMicroJob: 0.01 } })).toBe(5_000)
    expect(runTimeoutMs({ estimate: { secondsPerMicroJob: 1 } })).toBe(10_000)
    expect(runTimeoutMs({ estimate: { secondsPerMicroJob: 3600 } })).toBe(30_000)
  })
})
