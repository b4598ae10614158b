import { startChain } from '@jobmesh/testkit/anvil'
import { startPeers, stopPeers, testExecutor, testJob, waitFor } from '@jobmesh/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { docsOfJob, docTopic, roundDocName } from '../../src/crdt/index.js'
import { DEADLINE_MARGIN_MS, DEFAULT_PRICING } from '../../src/protocol/index.js'
import { announceJob } from '../../src/jobs/index.js'
import { DEFAULT_CHAIN_READ_CONCURRENCY } from '../../src/observe/constants.js'
import { EventLog, NetworkObserver } from '../../src/observe/index.js'
import { fundJob, jobToFund } from '../settlement/funded-job.js'
import type { TestPeer } from '@jobmesh/testkit'
import type { TestChain } from '@jobmesh/testkit/anvil'
import type { ChainClient } from '@jobmesh/contracts'

let chain: TestChain | undefined
let peers: TestPeer[] = []
let observer: NetworkObserver | undefined
afterEach(async () => {
  observer?.stop()
  observer = undefined
  await stopPeers(peers)
  peers = []
  await chain?.stop()
  chain = undefined
})

describe('NetworkObserver', () => {
  it('follows a live job\'s doc; shows a job over on chain from what the peer stored, without opening or following it; closes a watched job once it is over', async () => {
    chain = await startChain({ accounts: 2 })
    const [creator] = chain.clients
    peers = await startPeers(1, { executor: testExecutor({ workMs: 5 }) })
    const [p] = peers
    await p.processor.start()
    // due soon enough to be refunded after a jump of the chain's clock, late enough to be worked on now
    const over = await fundJob(creator, { deadline: Date.now() + DEADLINE_MARGIN_MS + 420_000 })
    const live = await fundJob(creator, { nonce: 2n })
    // a job this peer cannot take (more VRAM than it has): only the observer opens its doc
    const unmatched = await fundJob(creator, { deadline: Date.now() + DEADLINE_MARGIN_MS + 420_000, nonce: 3n, minVramGb: 4096 })
    const complete = new Set<string>()
    p.processor.addEventListener('job:complete', (evt) => { complete.add(evt.detail.jobId.toLowerCase()) })
    for (const job of [over, live, unmatched]) await p.processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => complete.has(over.jobId.toLowerCase()) && complete.has(live.jobId.toLowerCase()), { timeoutMs: 30_000, what: 'both jobs done here' })
    await creator.provider.send('evm_increaseTime', [900])
    await creator.provider.send('evm_mine', [])
    await creator.refund(over.jobId)
    // as after a restart: what the peer held of both jobs is in its datastore, nothing of them is open
    for (const job of [over, live]) {
      for (const name of docsOfJob(p.docs.names(), job.jobId)) await p.docs.close(name)
    }

    observer = new NetworkObserver({ node: p.node, docs: p.docs, events: new EventLog(), chain: creator, processor: p.processor }, { chainRefreshMs: 0 })
    await observer.start()
    const card = (jobId: string): ReturnType<NetworkObserver['state']>['jobs'][number] | undefined =>
      observer?.state().jobs.find(j => j.jobId === jobId.toLowerCase())
    await waitFor(() => p.docs.get(roundDocName(live.jobId, 0)) != null && p.docs.get(roundDocName(unmatched.jobId, 0)) != null &&
      card(over.jobId) != null, { timeoutMs: 10_000, what: 'the three cards' })
    await observer.refreshChain()

    // the live job is followed: its round's doc open, its topic subscribed
    expect(p.node.pubsub.getTopics()).toContain(docTopic(roundDocName(live.jobId, 0)))
    // the refunded one is read from the datastore: nothing of it open, nothing subscribed
    expect(docsOfJob(p.docs.names(), over.jobId)).toEqual([])
    expect(p.node.pubsub.getTopics()).not.toContain(docTopic(roundDocName(over.jobId, 0)))
    // and its card is what the peer stored: both MicroJobs done, refunded on chain
    await waitFor(() => card(over.jobId)?.progress.done === 2, { timeoutMs: 5_000, what: 'the stored progress of the refunded job' })
    expect(card(over.jobId)?.verification?.status).toBe('Refunded')
    expect(card(live.jobId)?.progress).toMatchObject({ done: 2, total: 2 })

    // a job followed for its card, never worked on here, refunded while the dashboard watches: its doc is closed
    expect(p.node.pubsub.getTopics()).toContain(docTopic(roundDocName(unmatched.jobId, 0)))
    await creator.refund(unmatched.jobId)
    await observer.refreshChain()
    expect(docsOfJob(p.docs.names(), unmatched.jobId)).toEqual([])
    expect(p.node.pubsub.getTopics()).not.toContain(docTopic(roundDocName(unmatched.jobId, 0)))
    expect(card(unmatched.jobId)?.verification?.status).toBe('Refunded')
    // the jobs over on chain have left the per-job metrics; the live one is there
    expect(observer.jobCounts().map(j => j.jobId)).toEqual([live.jobId.toLowerCase()])
    // one worked on here is left to its retirement (after this peer's settlement), though it is over too
    await creator.provider.send('evm_increaseTime', [3_600])
    await creator.provider.send('evm_mine', [])
    await creator.refund(live.jobId)
    await observer.refreshChain()
    expect(card(live.jobId)?.verification?.status).toBe('Refunded')
    expect(p.docs.get(roundDocName(live.jobId, 0))).toBeDefined()
  })

  it('started after many jobs, it reads a few of them on chain at a time; the cards come newest first', async () => {
    chain = await startChain({ accounts: 2 })
    const [creator] = chain.clients
    peers = await startPeers(1)
    const [p] = peers
    const jobs = []
    // deadlines in the order of submission, as a DApp's default (a day after it) gives them
    const base = Date.now() + 3_600_000
    for (let i = 0; i < DEFAULT_CHAIN_READ_CONCURRENCY * 3; i++) jobs.push(await fundJob(creator, { nonce: BigInt(i + 1), deadline: base + i * 60_000 }))
    for (const job of jobs) await announceJob({ peerId: p.node.peerId, privateKey: p.node.privateKey, pubsub: p.node.pubsub, docs: p.docs }, job.spec, job.jobId, job.specCid, DEFAULT_PRICING)
    // the escrow's reads of a job, counted while they run
    let running = 0
    let most = 0
    let reads = 0
    const counted = new Proxy(creator, {
      get (target, key) {
        if (key === 'job') {
          return async (...args: Parameters<ChainClient['job']>) => {
            reads++
            most = Math.max(most, ++running)
            try {
              return await target.job(...args)
            } finally {
              running--
            }
          }
        }
        const value: unknown = Reflect.get(target, key)
        return typeof value === 'function' ? value.bind(target) : value
      }
    })
    observer = new NetworkObserver({ node: p.node, docs: p.docs, events: new EventLog(), chain: counted }, { chainRefreshMs: 0 })
    await observer.start()
    await waitFor(() => jobs.every(j => p.docs.get(roundDocName(j.jobId, 0)) != null), { timeoutMs: 20_000, what: 'every card' })
    await observer.refreshChain()
    expect(reads).toBeGreaterThanOrEqual(jobs.length * 2)
    expect(most).toBeLessThanOrEqual(DEFAULT_CHAIN_READ_CONCURRENCY)
    expect(most).toBeGreaterThan(1)
    expect(observer.state().jobs).toHaveLength(jobs.length)
    // the jobs the index held at the start: latest deadline first
    expect(observer.state().jobs.map(j => j.jobId)).toEqual(jobs.map(j => j.jobId.toLowerCase()).reverse())
    // a job announced while it watches comes first, whatever its deadline
    const late = await fundJob(creator, { nonce: 1000n, deadline: base - 60_000 })
    await announceJob({ peerId: p.node.peerId, privateKey: p.node.privateKey, pubsub: p.node.pubsub, docs: p.docs }, late.spec, late.jobId, late.specCid, DEFAULT_PRICING)
    await waitFor(() => observer?.state().jobs.length === jobs.length + 1, { timeoutMs: 20_000, what: 'the new job\'s card' })
    expect(observer.state().jobs[0].jobId).toBe(late.jobId.toLowerCase())
  })

  it('gives a job the escrow does not hold no card, doc or metrics; looks again, and shows it once it is funded', async () => {
    chain = await startChain({ accounts: 2 })
    const [creator] = chain.clients
    peers = await startPeers(1)
    const [p] = peers
    const self = { peerId: p.node.peerId, privateKey: p.node.privateKey, pubsub: p.node.pubsub, docs: p.docs }
    const funded = await fundJob(creator, { nonce: 1n })
    const later = await jobToFund(creator, { nonce: 2n })
    // announced by a node (a registered one's announcements are admitted without a chain read): never funded, or not yet
    const never = testJob(1, 2)
    for (const job of [funded, later, never]) await announceJob(self, job.spec, job.jobId, job.specCid, DEFAULT_PRICING)
    let reads = 0
    const counted = new Proxy(creator, {
      get (target, key) {
        if (key === 'job') return async (...args: Parameters<ChainClient['job']>) => { reads++; return await target.job(...args) }
        const value: unknown = Reflect.get(target, key)
        return typeof value === 'function' ? value.bind(target) : value
      }
    })
    observer = new NetworkObserver({ node: p.node, docs: p.docs, events: new EventLog(), chain: counted }, { chainRefreshMs: 0, unfundedRecheckMs: 200 })
    await observer.start()
    const cards = (): string[] => observer?.state().jobs.map(j => j.jobId).sort() ?? []
    await waitFor(() => cards().length === 1 && reads >= 5, { timeoutMs: 20_000, what: 'the funded job\'s card, and the others read again' })
    expect(cards()).toEqual([funded.jobId.toLowerCase()])
    // the unfunded ones: no doc opened, no MicroJob series
    for (const job of [later, never]) expect(p.docs.get(roundDocName(job.jobId, 0))).toBeUndefined()
    expect(observer.jobCounts().map(c => c.jobId)).toEqual([funded.jobId.toLowerCase()])
    // funded now: its card comes at a later look
    await later.fund()
    await waitFor(() => cards().length === 2, { timeoutMs: 20_000, what: 'the card of the job funded late' })
    expect(cards()).toEqual([funded.jobId, later.jobId].map(id => id.toLowerCase()).sort())
    expect(p.docs.get(roundDocName(later.jobId, 0))).toBeDefined()
    expect(p.docs.get(roundDocName(never.jobId, 0))).toBeUndefined()
  })
})
