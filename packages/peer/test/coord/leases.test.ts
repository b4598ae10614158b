import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { describe, expect, it, vi } from 'vitest'
import * as Y from 'yjs'
import { leases, recordSigner, recordVerifier } from '../../src/coord/index.js'
import { MIN_SETTLE_MS } from '../../src/coord/constants.js'
import { LeaseHeldError } from '../../src/coord/errors.js'

async function peer (clock: () => number) {
  const key = await generateKeyPair('Ed25519')
  const id = peerIdFromPrivateKey(key).toString()
  const signer = recordSigner(key, id)
  return { id, l: leases({ signer, verifier: recordVerifier(), clock }, { leaseMs: 1000, skewMs: 100, settleMs: 0 }) }
}

function sync (a: Y.Doc, b: Y.Doc): void {
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)))
  Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)))
}


/** Runs `fn` on a fake clock (timers and `performance`, which the settle measures the confirm with). */
async function withFakeTimers (fn: () => Promise<void>): Promise<void> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
  try {
    await fn()
  } finally {
    vi.useRealTimers()
  }
}

/** Leases with a 250 ms settle window, for the settle rules. */
async function settlingLeases (): Promise<ReturnType<typeof leases>> {
  const key = await generateKeyPair('Ed25519')
  const id = peerIdFromPrivateKey(key).toString()
  return leases({ signer: recordSigner(key, id), verifier: recordVerifier(), clock: () => 5_000 }, { leaseMs: 10_000, settleMs: 250 })
}

/** The claim resolves exactly `at` ms from now on the fake clock, not a ms before. */
async function expectSettlesAt (claim: Promise<unknown>, at: number, what: string): Promise<void> {
  let won = false
  void claim.then(() => { won = true })
  await vi.advanceTimersByTimeAsync(at - 1)
  expect(won, `${what}: not before ${at} ms`).toBe(false)
  await vi.advanceTimersByTimeAsync(1)
  expect(won, `${what}: at ${at} ms`).toBe(true)
}

describe('leases', () => {
  it('drop deletes only the own lease of that term (a result decides the item)', async () => {
    let now = 10_000
    const a = await peer(() => now)
    const b = await peer(() => now)
    const doc = new Y.Doc()
    const ta = a.l.table(doc.getMap('micro'), 'jobmesh/micro/0x01')
    const tb = b.l.table(doc.getMap('micro'), 'jobmesh/micro/0x01')
    ta.take('0.0')
    tb.drop('0.0', 1) // not b's lease
    ta.drop('0.0', 2) // not the held term
    expect(tb.get('0.0')?.owner).toBe(a.id)
    now = 20_000 // expired: still a's lease of term 1, still dropped
    ta.drop('0.0', 1)
    expect(doc.getMap('micro').has('0.0')).toBe(false)
    expect(tb.isOpen('0.0')).toBe(true)
  })

  it('a lease that runs further ahead than a lease length plus the largest clock lead is open: another peer takes it over', async () => {
    const now = 10_000
    const a = await peer(() => now)
    const b = await peer(() => now)
    // a peer whose clock runs the skew allowance ahead: its lease is still believed
    const ahead = await peer(() => now + 100)
    const doc = new Y.Doc()
    const ta = a.l.table(doc.getMap('micro'), 'jobmesh/micro/0x01')
    const tb = b.l.table(doc.getMap('micro'), 'jobmesh/micro/0x01')
    ahead.l.table(doc.getMap('micro'), 'jobmesh/micro/0x01').take('0.1')
    expect(tb.isOpen('0.1')).toBe(false)
    // one signed lease ten years ahead (a malicious registered peer): not a lease this network writes
    const far = await peer(() => now + 10 * 365 * 86_400_000)
    far.l.table(doc.getMap('micro'), 'jobmesh/micro/0x01').take('0.0')
    expect(ta.isOpen('0.0')).toBe(true)
    expect(b.l.isOpen(tb.get('0.0'))).toBe(true)
    expect(tb.take('0.0')).toEqual({ owner: b.id, term: 2, expiresAt: 11_000 })
  })

  it('a lease of an honest peer whose clock runs a few seconds fast is held, with the default lease and skew', async () => {
    const now = 10_000
    const withDefaults = async (clock: () => number) => {
      const key = await generateKeyPair('Ed25519')
      const id = peerIdFromPrivateKey(key).toString()
      return { id, l: leases({ signer: recordSigner(key, id), verifier: recordVerifier(), clock }) }
    }
    const onTime = await withDefaults(() => now)
    // NTP-less machines drift seconds: 5 s ahead is past the skew allowance (2 s), far below a lease (15 s)
    const fast = await withDefaults(() => now + 5_000)
    const doc = new Y.Doc()
    const tf = fast.l.table(doc.getMap('micro'), 'jobmesh/micro/0x01')
    const to = onTime.l.table(doc.getMap('micro'), 'jobmesh/micro/0x01')
    const lease = tf.take('0.0')
    expect(to.isOpen('0.0')).toBe(false)
    expect(() => to.take('0.0')).toThrow(LeaseHeldError)
    expect(tf.holds('0.0', lease.term)).toBe(true)
  })

  it('a claim above a lease of the largest term takes that term over (a uint32 record writes 2^32 as 0)', async () => {
    const now = 10_000
    const a = await peer(() => now)
    const b = await peer(() => now)
    const doc = new Y.Doc()
    const ta = a.l.table(doc.getMap('macro'), 'jobmesh/macro/0x01')
    const tb = b.l.table(doc.getMap('macro'), 'jobmesh/macro/0x01')
    ta.take('0', { minTerm: 0xffff_ffff })
    expect(tb.get('0')?.term).toBe(0xffff_ffff)
    const lease = await tb.claim('0', { force: true, minTerm: 0xffff_ffff + 1 })
    expect(lease.term).toBe(0xffff_ffff)
    expect(ta.get('0')).toEqual(lease)
    expect(tb.holds('0', 0xffff_ffff)).toBe(true)
  })

  it('open, take, held, expiry with skew, renew, release', async () => {
    let now = 10_000
    const a = await peer(() => now)
    const b = await peer(() => now)
    const doc = new Y.Doc()
    const ta = a.l.table(doc.getMap('micro'), 'jobmesh/micro/0x01')
    const tb = b.l.table(doc.getMap('micro'), 'jobmesh/micro/0x01')
    expect(ta.isOpen('0.0')).toBe(true)
    const lease = ta.take('0.0')
    expect(lease).toEqual({ owner: a.id, term: 1, expiresAt: 11_000 })
    expect(tb.get('0.0')).toEqual(lease)
    expect(tb.isOpen('0.0')).toBe(false)
    expect(() => tb.take('0.0')).toThrow(expect.objectContaining({ name: 'LeaseHeldError' }))
    now = 11_050 // expired but inside the skew allowance
    expect(tb.isOpen('0.0')).toBe(false)
    now = 10_900
    expect(ta.renew('0.0', 1)?.expiresAt).toBe(11_900)
    expect(tb.renew('0.0', 1)).toBeUndefined()
    now = 12_001 // 11 900 + 100 skew < now
    expect(tb.isOpen('0.0')).toBe(true)
    const taken = tb.take('0.0')
    expect(taken.term).toBe(2)
    expect(ta.holds('0.0', 1)).toBe(false)
    tb.release('0.0', 2)
    expect(ta.isOpen('0.0')).toBe(true)
    expect(ta.get('0.0')?.term).toBe(2)
  })

  it('concurrent claims: every peer agrees on one winner after sync', async () => {
    const now = 5_000
    const a = await peer(() => now)
    const b = await peer(() => now)
    const da = new Y.Doc()
    const db = new Y.Doc()
    const ta = a.l.table(da.getMap('macro'), 'jobmesh/macro/0x01')
    const tb = b.l.table(db.getMap('macro'), 'jobmesh/macro/0x01')
    const la = ta.take('0')
    const lb = tb.take('0')
    expect(la.term).toBe(1)
    expect(lb.term).toBe(1)
    sync(da, db)
    const winnerA = ta.get('0')?.owner
    expect(winnerA).toBe(tb.get('0')?.owner)
    expect(ta.holds('0', 1) !== tb.holds('0', 1)).toBe(true)
    // claim() = take + settle + re-read: the loser throws LeaseLostError
    const loser = winnerA === a.id ? tb : ta
    const winner = winnerA === a.id ? ta : tb
    await expect(winner.claim('1')).resolves.toMatchObject({ term: 1 })
    expect(loser.holds('0', 1)).toBe(false)
  })

  it('a claim whose lease a rival replaces while it settles is lost at once, not after the settle window', async () => {
    const now = 5_000
    const key = await generateKeyPair('Ed25519')
    const id = peerIdFromPrivateKey(key).toString()
    // a settle window far beyond the test's timeout: only the rival's record can end this claim in time
    const slow = leases({ signer: recordSigner(key, id), verifier: recordVerifier(), clock: () => now }, { leaseMs: 1000, skewMs: 100, settleMs: 60_000 })
    const b = await peer(() => now)
    const da = new Y.Doc()
    const db = new Y.Doc()
    const ta = slow.table(da.getMap('macro'), 'jobmesh/macro/0x01')
    const tb = b.l.table(db.getMap('macro'), 'jobmesh/macro/0x01')
    const abort = new AbortController()
    let outcome: string | undefined
    void ta.claim('0', { signal: abort.signal }).then(() => { outcome = 'won' }, (err: Error) => { outcome = err.name })
    const turn = async (): Promise<void> => { await new Promise(resolve => setImmediate(resolve)) }
    // an unrelated key changing does not end it
    tb.take('1')
    sync(da, db)
    await turn()
    expect(outcome).toBeUndefined()
    tb.take('0', { force: true })
    sync(da, db)
    await turn()
    expect(outcome).toBe('LeaseLostError')
    expect(ta.get('0')).toMatchObject({ owner: b.id, term: 2 })
    abort.abort()
  })

  it('a claim settles after twice its confirm when that reached every connected peer, else after the whole window', async () => {
    await withFakeTimers(async () => {
      const l = await settlingLeases()
      // [confirm takes ms, peers it could not reach, peers it did not ask, the claim resolves after ms]
      const cases: Array<[number, number, number, number]> = [
        [10, 0, 0, MIN_SETTLE_MS], // a quick confirm: the floor
        [100, 0, 0, 200], // twice the confirm
        [200, 0, 0, 250], // never beyond the settle window
        [400, 0, 0, 400], // a slow confirm is waited for, nothing after it
        [10, 1, 0, 250], // a peer it could not reach: the whole window (its claim may come by gossip)
        [10, 0, 3, 250] // peers it did not ask (not in the room): the whole window
      ]
      for (const [confirmMs, unreached, skipped, settlesAt] of cases) {
        const table = l.table(new Y.Doc().getMap('macro'), 'jobmesh/macro/0x01', {
          confirm: async () => await new Promise(resolve => setTimeout(() => { resolve({ exchanged: 0, unreached, skipped }) }, confirmMs))
        })
        await expectSettlesAt(table.claim('0'), settlesAt, `confirm ${confirmMs} ms, ${unreached} unreached`)
      }
    })
  })

  it('beside a confirm with every peer, one with the claim\'s rivals settles it once they answered and the window passed', async () => {
    await withFakeTimers(async () => {
      const l = await settlingLeases()
      // [every peer answers after ms, the rivals answer after ms, the claim resolves after ms]
      const cases: Array<[number, number, number]> = [
        [600, 20, 250], // starved peers: the rivals and the window decide
        [600, 400, 400], // a rival slower than the window is waited for
        [10, 20, MIN_SETTLE_MS] // an idle network: the quick confirm with everyone still settles first
      ]
      for (const [allMs, rivalsMs, settlesAt] of cases) {
        const asked: Array<string[] | undefined> = []
        const table = l.table(new Y.Doc().getMap('macro'), 'jobmesh/macro/0x01', {
          confirm: async ({ peers }) => {
            asked.push(peers)
            const ms = peers == null ? allMs : rivalsMs
            return await new Promise(resolve => setTimeout(() => { resolve({ exchanged: peers?.length ?? 7, unreached: 0, skipped: peers == null ? 0 : 7 - peers.length }) }, ms))
          }
        })
        await expectSettlesAt(table.claim('0', { rivals: ['rival'] }), settlesAt, `every peer ${allMs} ms, rivals ${rivalsMs} ms`)
        expect(asked).toEqual([undefined, ['rival']])
        await vi.advanceTimersByTimeAsync(allMs)
      }
    })
  })

  it('a claim\'s own settle window shortens the table\'s, never lengthens it', async () => {
    await withFakeTimers(async () => {
      const l = await settlingLeases()
      const table = l.table(new Y.Doc().getMap('macro'), 'jobmesh/macro/0x01')
      // [the claim's settleMs, the claim resolves after ms] with the table's window at 250 and no confirm
      const cases: Array<[number | undefined, number]> = [[100, 100], [400, 250], [undefined, 250]]
      for (const [settleMs, settlesAt] of cases) {
        await expectSettlesAt(table.claim(`k${settleMs}`, { settleMs }), settlesAt, `settleMs ${settleMs}`)
      }
      // with a confirm that reached every peer, the shorter window bounds twice the confirm as well
      const confirmed = l.table(new Y.Doc().getMap('macro'), 'jobmesh/macro/0x01', {
        confirm: async () => await new Promise(resolve => setTimeout(() => { resolve({ exchanged: 3, unreached: 0, skipped: 0 }) }, 80))
      })
      await expectSettlesAt(confirmed.claim('0', { rivals: ['rival'], settleMs: 100 }), 100, 'confirm 80 ms, settleMs 100')
    })
  })

  it('a record with a bad signature is absent', async () => {
    const now = 1_000
    const a = await peer(() => now)
    const doc = new Y.Doc()
    const map = doc.getMap<Uint8Array>('micro')
    const t = a.l.table(map, 'jobmesh/micro/0x01')
    t.take('0.1')
    const bytes = map.get('0.1')!.slice()
    bytes[bytes.length - 1] ^= 0xff
    map.set('0.1', bytes)
    expect(t.get('0.1')).toBeUndefined()
    expect(t.isOpen('0.1')).toBe(true)
    // a record copied to another key (another domain) does not verify either
    t.take('0.2')
    map.set('0.3', map.get('0.2')!)
    expect(t.get('0.3')).toBeUndefined()
  })
})
