import { describe, expect, it } from 'vitest'
import { chooseRoom } from '../../src/processor/room-choice.js'
import { startOrder } from '../../src/processor/start-order.js'
import type { AnnouncedRoom, RoomChoiceView } from '../../src/processor/room-choice.js'

/** A view of a job with `macroJobs` MacroJobs at time `now`, nothing announced, no room joined, every lease open. */
function view (overrides: Partial<RoomChoiceView> = {}): RoomChoiceView {
  return {
    now: 10_000,
    macroJobs: 4,
    ttlMs: 3_000,
    announced: new Map(),
    rooms: new Map(),
    macroDone: () => false,
    macroLeaseOpen: () => true,
    rank: rankOf('peer-a'),
    ...overrides
  }
}

const PEERS = ['peer-a', 'peer-b', 'peer-c', 'peer-d', 'peer-e', 'peer-f']
/** `peer`'s preference in job 0xjob among {@link PEERS}, with 4 MacroJobs. */
const rankOf = (peer: string) => startOrder(peer, PEERS, '0xjob', 4).rank

const announced = (entries: Array<[number, AnnouncedRoom]>): Map<number, AnnouncedRoom> => new Map(entries)

describe('chooseRoom', () => {
  it('joins a room announced within the ttl with open items', () => {
    expect(chooseRoom(view({ announced: announced([[2, { open: 5, at: 8_000, owner: 'b' }]]) }))).toEqual({ kind: 'join', macroIndex: 2 })
  })

  it('ignores announcements older than the ttl, with nothing open, or of a finished MacroJob', () => {
    const a = announced([[0, { open: 5, at: 6_999, owner: 'b' }], [1, { open: 0, at: 9_000, owner: 'b' }], [2, { open: 3, at: 9_000, owner: 'c' }]])
    const choice = chooseRoom(view({ announced: a, macroDone: (m) => m === 2, macroLeaseOpen: () => false }))
    expect(choice).toEqual({ kind: 'discover' })
  })

  it('goes first to a room whose queue it owns with open items (nobody else serves it until someone asks)', () => {
    const rooms = new Map([[1, { hasOpen: true, complete: false }], [2, { hasOpen: true, complete: false, owned: true }], [3, { hasOpen: true, complete: true, owned: true }]])
    for (const rank of [(m: number) => new Uint8Array([m]), (m: number) => new Uint8Array([9 - m])]) {
      expect(chooseRoom(view({ rooms, rank, announced: announced([[0, { open: 9, at: 9_000, owner: 'b' }]]) }))).toEqual({ kind: 'join', macroIndex: 2 })
    }
  })

  it('joins a room this peer is in while its queue shows open items, not a completed one', () => {
    const rooms = new Map([[1, { hasOpen: true, complete: false }], [3, { hasOpen: true, complete: true }]])
    expect(chooseRoom(view({ rooms, macroLeaseOpen: () => false }))).toEqual({ kind: 'join', macroIndex: 1 })
  })

  it('goes to equal rooms in this peer\'s start order, so peers choosing together go different ways', () => {
    const a = announced([[0, { open: 5, at: 9_000, owner: 'b' }], [3, { open: 5, at: 9_000, owner: 'c' }]])
    expect(chooseRoom(view({ announced: a, rank: (m) => new Uint8Array([m]) }))).toEqual({ kind: 'join', macroIndex: 0 })
    expect(chooseRoom(view({ announced: a, rank: (m) => new Uint8Array([9 - m]) }))).toEqual({ kind: 'join', macroIndex: 3 })
    const picks = new Set(PEERS.map(peer => {
      const choice = chooseRoom(view({ announced: a, rank: rankOf(peer) }))
      return choice.kind === 'join' ? choice.macroIndex : -1
    }))
    expect([...picks].sort()).toEqual([0, 3])
  })

  it('claims an unserved MacroJob before it joins a served one (a room of one costs no room message)', () => {
    const a = announced([[0, { open: 160, at: 9_000, owner: 'b' }]])
    const v = view({ announced: a, members: (m) => m === 0 ? 1 : 0, remaining: () => 160, macroLeaseOpen: (m) => m !== 0 })
    const choice = chooseRoom(v)
    expect(choice.kind).toBe('claim')
    // with every MacroJob served, it joins
    expect(chooseRoom({ ...v, macroLeaseOpen: () => false })).toEqual({ kind: 'join', macroIndex: 0 })
  })

  it('joins the room where its share is largest: open items over members, this peer included', () => {
    const a = announced([[0, { open: 100, at: 9_000, owner: 'b' }], [1, { open: 100, at: 9_000, owner: 'c' }], [2, { open: 10, at: 9_000, owner: 'd' }]])
    const members = (m: number): number => [3, 1, 0][m]
    const v = view({ announced: a, members, macroLeaseOpen: () => false })
    // 100 / 4, 100 / 2, 10 / 2 (an announced room has its owner in it even before its subscription arrived)
    expect(chooseRoom(v)).toEqual({ kind: 'join', macroIndex: 1 })
    // a room it is in counts its own queue's open items; the peer itself is not among the others
    const rooms = new Map([[2, { hasOpen: true, complete: false, open: 90 }]])
    expect(chooseRoom({ ...v, rooms })).toEqual({ kind: 'join', macroIndex: 2 })
    expect(chooseRoom({ ...v, rooms, members: (m) => [3, 1, 2][m] })).toEqual({ kind: 'join', macroIndex: 1 })
  })

  it('does not join a room it is not in for less than one open item per member (every idle peer hears the same announcement)', () => {
    // the job's tail: 2 items open in a room of 2, announced to every idle peer; each would join for 2/3 of an item
    const v = view({ macroJobs: 8, announced: announced([[7, { open: 2, at: 9_000, owner: 'b' }]]), members: (m) => m === 7 ? 2 : 0, macroLeaseOpen: () => false })
    expect(chooseRoom(v)).toEqual({ kind: 'discover' })
    // 3 open items: one for each member and this peer
    expect(chooseRoom({ ...v, announced: announced([[7, { open: 3, at: 9_000, owner: 'b' }]]) })).toEqual({ kind: 'join', macroIndex: 7 })
    // one open item where only the owner is known (its subscription not arrived yet): the owner takes it
    expect(chooseRoom({ ...v, members: () => 0, announced: announced([[7, { open: 1, at: 9_000, owner: 'b' }]]) })).toEqual({ kind: 'discover' })
    // a room it is in counts whatever its queue shows open
    const rooms = new Map([[7, { hasOpen: true, complete: false, open: 1 }]])
    expect(chooseRoom({ ...v, rooms })).toEqual({ kind: 'join', macroIndex: 7 })
  })

  it('counts a room being opened (its lease taken, nothing done, not announced yet) as a room to join', () => {
    // peers that start together see the first claims' leases before their rooms are announced
    const a = announced([[1, { open: 160, at: 9_000, owner: 'b' }]])
    const members = (m: number): number => [1, 2, 0, 0][m]
    const v = view({ announced: a, members, remaining: () => 160, macroLeaseOpen: () => false, opening: (m) => m !== 1 })
    // 0: 160 / 2, 1: 160 / 3, 2 and 3: 160 / 2 (the lease holder is in it): the best in this peer's hash order
    expect(chooseRoom({ ...v, rank: (m) => new Uint8Array([m]) })).toEqual({ kind: 'join', macroIndex: 0 })
    expect(chooseRoom({ ...v, rank: (m) => new Uint8Array([9 - m]) })).toEqual({ kind: 'join', macroIndex: 3 })
    expect(chooseRoom({ ...v, opening: () => false })).toEqual({ kind: 'join', macroIndex: 1 })
  })

  it('the first M peers of the start order claim M different MacroJobs; the others join the room of their rotation once it opens', () => {
    const byPosition = new Map(PEERS.map(peer => [startOrder(peer, PEERS, '0xjob', 4).position, peer]))
    expect([...byPosition.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5])
    const claims = [0, 1, 2, 3].map(k => chooseRoom(view({ rank: rankOf(byPosition.get(k) ?? '') })))
    expect(claims).toEqual([0, 1, 2, 3].map(m => ({ kind: 'claim', macroIndex: m })))
    // position 4 (after the first M): nothing claimed yet, so it waits; once every MacroJob is being opened it joins
    // the room of its rotation (4 mod 4 = 0), so the joiners spread over the rooms as the claimants did
    const late = byPosition.get(4) ?? ''
    expect(chooseRoom(view({ rank: rankOf(late), waitForClaims: true }))).toEqual({ kind: 'wait' })
    // another claimant's room being opened while MacroJob 0 is unclaimed: it still waits (its share goes to room 0)
    const others = { macroLeaseOpen: (m: number) => m === 0, opening: (m: number) => m !== 0, members: () => 1, remaining: () => 160 }
    expect(chooseRoom(view({ rank: rankOf(late), waitForClaims: true, ...others }))).toEqual({ kind: 'wait' })
    // its own room being opened: it joins at once, without waiting for the other claims
    const own = { macroLeaseOpen: (m: number) => m !== 0, opening: (m: number) => m === 0, members: () => 1, remaining: () => 160 }
    expect(chooseRoom(view({ rank: rankOf(late), waitForClaims: true, ...own }))).toEqual({ kind: 'join', macroIndex: 0 })
    const opened = view({ rank: rankOf(late), waitForClaims: true, macroLeaseOpen: () => false, opening: () => true, members: () => 1, remaining: () => 160 })
    expect(chooseRoom(opened)).toEqual({ kind: 'join', macroIndex: 0 })
    // its wait over (the job is no longer new to it), it claims what is still unclaimed
    expect(chooseRoom(view({ rank: rankOf(late) }))).toEqual({ kind: 'claim', macroIndex: 0 })
  })

  it('does not claim a held lease, a finished MacroJob, or one whose room was announced within the ttl', () => {
    const v = view({
      macroLeaseOpen: (m) => m !== 0,
      macroDone: (m) => m === 1,
      announced: announced([[2, { open: 0, at: 9_500, owner: 'b' }]]),
      rank: (m) => new Uint8Array([m])
    })
    expect(chooseRoom(v)).toEqual({ kind: 'claim', macroIndex: 3 })
    // once the announcement is older than the ttl (the fake clock moves on), MacroJob 2 is claimable again
    expect(chooseRoom({ ...v, now: 12_500 })).toEqual({ kind: 'claim', macroIndex: 2 })
  })

  it('asks for announcements when nothing is known to be open', () => {
    expect(chooseRoom(view({ macroLeaseOpen: () => false }))).toEqual({ kind: 'discover' })
  })
})
