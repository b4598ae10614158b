import * as Y from 'yjs'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAdmission, INDEX_JOBS_MAP } from '../../src/coord/index.js'
import type { AdmissionInit } from '../../src/coord/admission.js'
import { DEFAULT_ADMISSION_NEGATIVE_TTL_MS } from '../../src/coord/constants.js'
import { INDEX_DOC, jobDocName } from '../../src/crdt/index.js'

const FUNDED = '0x' + 'aa'.repeat(32)
const NODE = '12D3KooWnode'
const DAPP = '12D3KooWdapp'

/** An update writing an entry for each of `jobIds` to the jobs map of a copy of `index`. */
function announcing (index: Y.Doc, ...jobIds: string[]): Uint8Array {
  const copy = new Y.Doc()
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(index))
  const before = Y.encodeStateVector(copy)
  for (const id of jobIds) copy.getMap(INDEX_JOBS_MAP).set(id, new Uint8Array([1]))
  return Y.encodeStateAsUpdate(copy, before)
}

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
    // a registered node writes what the guard allows, and nothing is read for it
    expect(await admission.admitUpdate(NODE, INDEX_DOC, announcing(index, unfunded))).toBe('yes')
    // job docs are the business of `admit` alone
    expect(await admission.admitUpdate(DAPP, jobDocName(FUNDED), announcing(index, unfunded))).toBe('yes')
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

  it('holds back, without a read, a flood in one update and an update it cannot place', async () => {
    const { admission, index, reads } = setup({ maxJobReads: 4 })
    const flood = Array.from({ length: 5 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`)
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, ...flood))).toBe('later')
    // an overwrite of an entry this peer does not hold: what it writes cannot be told
    const elsewhere = new Y.Doc()
    elsewhere.getMap(INDEX_JOBS_MAP).set(FUNDED, new Uint8Array([0]))
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(elsewhere, FUNDED))).toBe('later')
    expect(reads).toEqual([])
  })

  it('a node not registered has a budget of reads of unknown jobs; past it its updates are refused, known jobs cost none', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { admission, index, reads } = setup({ jobReads: { ratePerSecond: 1, burst: 3 } })
    const unknown = (i: number): string => `0x${(i + 1).toString(16).padStart(64, 'e')}`
    for (let i = 0; i < 3; i++) expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, unknown(i)))).toBe('later')
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, unknown(3)))).toBe('no')
    expect(reads).toHaveLength(3)
    // another node has its own budget; a job read once is known for good and costs no token
    expect(await admission.admitUpdate('12D3KooWother', INDEX_DOC, announcing(index, FUNDED))).toBe('yes')
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, FUNDED))).toBe('yes')
    // the budget refills with time (the refused read overdrew it by one)
    vi.setSystemTime(Date.now() + 2_000)
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, unknown(4)))).toBe('later')
  })

  it('without a way to read jobs (no chain), every update the guard allows', async () => {
    const index = new Y.Doc()
    const admission = createAdmission({ isRegistered: async () => false, index: () => index })
    expect(await admission.admitUpdate(DAPP, INDEX_DOC, announcing(index, '0x' + 'dd'.repeat(32)))).toBe('yes')
  })
})
