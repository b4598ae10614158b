import * as Y from 'yjs'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { testJob } from '@jobmesh/testkit'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createAdmission, INDEX_JOBS_MAP, PEERS_MAP, PROFILE_DOMAIN, recordSigner } from '../../src/coord/index.js'
import { DEFAULT_ADMISSION_NEGATIVE_TTL_MS, DEFAULT_ADMISSION_POSITIVE_TTL_MS } from '../../src/coord/constants.js'
import { INDEX_DOC, jobDocName } from '../../src/crdt/index.js'
import { signAnnouncement } from '../../src/jobs/index.js'
import { DEFAULT_PRICING } from '../../src/protocol/index.js'
import { updateOf } from '../crdt/helpers.js'
import type { AdmissionInit } from '../../src/coord/admission.js'

const FUNDED = '0x' + 'aa'.repeat(32)
const NODE = '12D3KooWnode'
let DAPP = ''
let sign: (jobId: string) => Uint8Array
let profile: Uint8Array

beforeAll(async () => {
  const key = await generateKeyPair('Ed25519')
  DAPP = peerIdFromPrivateKey(key).toString()
  const signer = recordSigner(key, DAPP)
  profile = signer.sign(`${PROFILE_DOMAIN}/${DAPP}`, new Uint8Array([1, 2, 3]))
  const job = testJob(1, 2)
  sign = jobId => signAnnouncement(signer, job.spec, jobId, job.specCid, DEFAULT_PRICING)
})

/** An update announcing each job (a valid announcement signed by DAPP, under its own key). */
const announcing = (index: Y.Doc, ...jobIds: string[]): Uint8Array =>
  updateOf(index, d => { for (const id of jobIds) d.getMap(INDEX_JOBS_MAP).set(id, sign(id)) })

/** An admission over a chain where only NODE is registered and only FUNDED is known; counts the reads. */
function setup (init: AdmissionInit = {}): { admission: ReturnType<typeof createAdmission>, index: Y.Doc, reads: string[] } {
  const index = new Y.Doc()
  const reads: string[] = []
  const admission = createAdmission({
    isRegistered: async peer => peer === NODE,
    jobKnown: async jobId => {
      reads.push(jobId)
      return jobId === FUNDED
    },
    index: () => index
  }, init)
  return { admission, index, reads }
}

/** An admission over a registry that answers with `isRegistered`; counts its reads (one per PeerId read). */
function registryAdmission (isRegistered: (peer: string) => boolean, init: AdmissionInit = {}): { admission: ReturnType<typeof createAdmission>, reads: string[] } {
  const reads: string[] = []
  const admission = createAdmission({
    isRegistered: async peer => { reads.push(peer); return isRegistered(peer) },
    index: () => undefined
  }, init)
  return { admission, reads }
}

afterEach(() => { vi.useRealTimers() })

describe('index admission', () => {
  it('a node not registered writes to the index only announcements of jobs the escrow knows', async () => {
    const { admission, index } = setup()
    expect(await admission.admit(DAPP, INDEX_DOC)).toBe(true)
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, FUNDED))).toBe('yes')
    const unfunded = '0x' + 'bb'.repeat(32)
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, unfunded))).toBe('later')
    // one unknown job among known ones holds the whole update back (Yjs cannot apply part of it)
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, FUNDED, unfunded))).toBe('later')
    // a registered node writes what the guard allows
    expect(await admission.admitUpdate(NODE, INDEX_DOC, announcing(index, unfunded))).toBe('yes')
    // job docs are the business of `admit` alone
    expect(await admission.admitUpdate(DAPP, jobDocName(FUNDED), announcing(index, unfunded))).toBe('yes')
  })

  it('the key of a known job does not carry another job\'s announcement, junk, another map or another node\'s profile', async () => {
    const { admission, index } = setup()
    const other = '0x' + 'cc'.repeat(32)
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, updateOf(index, d => { d.getMap(INDEX_JOBS_MAP).set(FUNDED, sign(other)) }))).toBe('later')
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, updateOf(index, d => { d.getMap(INDEX_JOBS_MAP).set(FUNDED, new Uint8Array(5000)) }))).toBe('later')
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, updateOf(index, d => { d.getMap('x').set('junk', new Uint8Array(5000)) }))).toBe('later')
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, updateOf(index, d => { d.getMap(PEERS_MAP).set(NODE, profile) }))).toBe('later')
    // not even its own valid profile: keys are free, a profile per fresh key grew every peer's index (qa5)
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, updateOf(index, d => { d.getMap(PEERS_MAP).set(DAPP, new Uint8Array(5)) }))).toBe('later')
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, updateOf(index, d => { d.getMap(PEERS_MAP).set(DAPP, profile) }))).toBe('later')
    expect(await admission.admitUpdate(NODE, INDEX_DOC, updateOf(index, d => { d.getMap(PEERS_MAP).set(NODE, profile) }))).toBe('yes')
    // two values under one key in one update, or a key written and then deleted: not one announcement
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, updateOf(index, d => { d.getMap(INDEX_JOBS_MAP).set(FUNDED, sign(FUNDED)); d.getMap(INDEX_JOBS_MAP).set(FUNDED, sign(FUNDED)) }))).toBe('later')
  })

  it('a node that registers right after it was asked about gets its own profile in at once, and only it', async () => {
    const index = new Y.Doc()
    const registered = new Set<string>()
    const asked: string[] = []
    const admission = createAdmission({
      isRegistered: async peer => { asked.push(peer); return registered.has(peer) },
      jobKnown: async () => false,
      index: () => index
    })
    const own = updateOf(index, d => { d.getMap(PEERS_MAP).set(DAPP, profile) })
    const junk = updateOf(index, d => { d.getMap('x').set('junk', new Uint8Array(5)) })
    // what it sent before it registered cached a no
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, junk)).toBe('later')
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, own)).toBe('later')
    registered.add(DAPP)
    // within the negative TTL: the profile is read against the chain again, anything else is not
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, junk)).toBe('later')
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, own)).toBe('yes')
    expect(asked.filter(p => p === DAPP)).toHaveLength(3)
  })

  it('answers are cached: a known job is read once, an unknown one again after the negative TTL', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { admission, index, reads } = setup()
    const unfunded = '0x' + 'cc'.repeat(32)
    await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, FUNDED))
    await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, FUNDED))
    await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, unfunded))
    await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, unfunded))
    expect(reads).toEqual([FUNDED, unfunded])
    vi.setSystemTime(Date.now() + DEFAULT_ADMISSION_NEGATIVE_TTL_MS)
    await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, unfunded))
    expect(reads).toEqual([FUNDED, unfunded, unfunded])
  })

  it('a node found registered is read again after the positive TTL: one that withdrew is no longer admitted', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    let registered = true
    const { admission, reads } = registryAdmission(() => registered)
    const doc = jobDocName(FUNDED)
    expect(await admission.admit(NODE, doc)).toBe(true)
    registered = false
    vi.setSystemTime(Date.now() + DEFAULT_ADMISSION_POSITIVE_TTL_MS - 1)
    expect(await admission.admit(NODE, doc)).toBe(true)
    expect(reads).toEqual([NODE])
    vi.setSystemTime(Date.now() + 1)
    expect(await admission.admit(NODE, doc)).toBe(false)
    expect(reads).toEqual([NODE, NODE])
  })

  it('a node found registered is read again past a budget a flood of fresh authors spent', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { admission, reads } = registryAdmission(peer => peer === NODE, { registryReads: { ratePerSecond: 0.001, burst: 3 } })
    const doc = jobDocName(FUNDED)
    expect(await admission.admit(NODE, doc)).toBe(true)
    for (const peer of ['12D3KooWf1', '12D3KooWf2', '12D3KooWf3']) expect(await admission.admit(peer, doc)).toBe(false)
    vi.setSystemTime(Date.now() + DEFAULT_ADMISSION_POSITIVE_TTL_MS)
    expect(await admission.admit('12D3KooWf4', doc)).toBe(false)
    expect(await admission.admit(NODE, doc)).toBe(true)
    expect(reads).toEqual([NODE, '12D3KooWf1', '12D3KooWf2', NODE])
  })

  it('a node found registered stays admitted while the registry cannot be read again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    let reachable = true
    const { admission } = registryAdmission(peer => {
      if (!reachable) throw new Error('RPC endpoint unreachable')
      return peer === NODE
    })
    const doc = jobDocName(FUNDED)
    expect(await admission.admit(NODE, doc)).toBe(true)
    reachable = false
    vi.setSystemTime(Date.now() + DEFAULT_ADMISSION_POSITIVE_TTL_MS)
    expect(await admission.admit(NODE, doc)).toBe(true)
    await expect(admission.admit('12D3KooWother', doc)).rejects.toThrow('RPC endpoint unreachable')
  })

  it('holds back, without a read, a flood in one update and an update it cannot place', async () => {
    const { admission, index, reads } = setup({ maxAnnouncements: 4 })
    const flood = Array.from({ length: 5 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`)
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, ...flood))).toBe('later')
    // an overwrite of an entry this peer does not hold: what it writes cannot be told
    const elsewhere = new Y.Doc()
    elsewhere.getMap(INDEX_JOBS_MAP).set(FUNDED, sign(FUNDED))
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(elsewhere, FUNDED))).toBe('later')
    expect(reads).toEqual([])
  })

  it('reads of unknown jobs: a token each, within a budget per node and one for all; past them held back, never refused', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { admission, index, reads } = setup({ jobReads: { ratePerSecond: 1, burst: 3 }, allJobReads: { ratePerSecond: 1, burst: 5 } })
    const unknown = (i: number): string => `0x${(i + 1).toString(16).padStart(64, 'e')}`
    // two jobs not read yet in one update: a token each
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, unknown(0), unknown(1)))).toBe('later')
    expect(reads).toHaveLength(2)
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, unknown(2)))).toBe('later')
    expect(reads).toHaveLength(3)
    // past its own budget, however far: held back, not refused (a budget is this peer's state)
    for (let i = 3; i < 12; i++) expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, unknown(i)))).toBe('later')
    expect(reads).toHaveLength(3)
    // a job cached as unknown costs no read
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, unknown(0)))).toBe('later')
    // another node has its own budget, within the one for all (5: two left)
    const other = async (i: number): Promise<string> => await admission.admitUpdate('12D3KooWother', INDEX_DOC, announcing(index, unknown(i)))
    expect([await other(20), await other(21), await other(22)]).toEqual(['later', 'later', 'later'])
    expect(reads).toHaveLength(5)
    // a job read once as known costs nothing after
    vi.setSystemTime(Date.now() + 60_000)
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, FUNDED))).toBe('yes')
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, FUNDED))).toBe('yes')
    expect(reads.filter(r => r === FUNDED)).toHaveLength(1)
  })

  it('registry reads of PeerIds not asked about yet share one budget: a flood of fresh authors is not read past it, a node read before still gets in', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const registryReads: string[] = []
    const admission = createAdmission({
      isRegistered: async peer => {
        registryReads.push(peer)
        return peer === NODE
      },
      index: () => undefined
    }, { registryReads: { ratePerSecond: 1, burst: 5 } })
    const doc = jobDocName('0x' + 'bb'.repeat(32))
    // the registered node, read once
    expect(await admission.registered(NODE)).toBe(true)
    // 1 000 fresh authors (a relay may carry any): 4 tokens left, so 4 reads; the rest not admitted, unread
    const fresh = Array.from({ length: 1000 }, (_, i) => `12D3KooWfresh${i}`)
    for (const peer of fresh) expect(await admission.admit(peer, doc)).toBe(false)
    expect(registryReads).toHaveLength(5)
    // the node read before costs no token: still admitted, on both paths
    expect(await admission.admit(NODE, doc)).toBe(true)
    expect(await admission.registered(NODE)).toBe(true)
    expect(registryReads).toHaveLength(5)
    // an author refused for want of a token was not cached as unregistered: read once the budget is back
    vi.setSystemTime(Date.now() + 60_000)
    expect(await admission.registered(fresh[999])).toBe(false)
    expect(registryReads.at(-1)).toBe(fresh[999])
    expect(registryReads).toHaveLength(6)
  })

  it('without a way to read jobs (no chain), every update the guard allows', async () => {
    const index = new Y.Doc()
    const admission = createAdmission({ isRegistered: async () => false, index: () => index })
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, updateOf(index, d => { d.getMap(INDEX_JOBS_MAP).set('x', new Uint8Array(1)) }))).toBe('yes')
  })
})
