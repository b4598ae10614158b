/** A RoomAnnouncement as the processor keeps it. */
export interface AnnouncedRoom {
  /** Open items the owner reported. */
  open: number
  /** When it was received (ms, the processor's clock). */
  at: number
  owner: string
}

/** What the room choice looks at, read from the job context when the choice is made. */
export interface RoomChoiceView {
  now: number
  macroJobs: number
  /** How long an announcement is trusted (ms). */
  ttlMs: number
  announced: ReadonlyMap<number, AnnouncedRoom>
  /**
   * Rooms this peer is in: whether its copy of the queue shows an open item, whether the room completed, and whether
   * this peer owns its queue.
   */
  rooms: ReadonlyMap<number, { hasOpen: boolean, complete: boolean, owned?: boolean, open?: number }>
  /** Every MicroJob of the MacroJob has a result. */
  macroDone(macroIndex: number): boolean
  /** Other peers known to be in the MacroJob's room (subscribers of its topic); default 0. */
  members?(macroIndex: number): number
  /** MicroJobs of the MacroJob without a result (what a claim would serve); default 1. */
  remaining?(macroIndex: number): number
  /**
   * Another peer holds the MacroJob lease and no MicroJob of it has a result yet: a room being opened whose
   * announcement may not have arrived (peers that start together see the leases before the rooms).
   */
  opening?(macroIndex: number): boolean
  /** Nobody holds the MacroJob lease. */
  macroLeaseOpen(macroIndex: number): boolean
  /** This peer's preference for a MacroJob (lower first): its job's start order (start-order.ts). */
  rank(macroIndex: number): Uint8Array
  /**
   * This peer comes after the first M of the job's start order and the job is new to it: the first M claim the
   * MacroJobs, so it does not claim one while it waits for their rooms to open (start-order.ts). Default false.
   */
  waitForClaims?: boolean
}

export type RoomChoice =
  /** Join the room of a MacroJob whose queue has open items (announced recently, or this peer is in it). */
  | { kind: 'join', macroIndex: number }
  /** Claim the lease of an open MacroJob nobody serves and create its queue. */
  | { kind: 'claim', macroIndex: number }
  /** Nothing known to be open: ask the job's rooms to announce themselves. */
  | { kind: 'discover' }
  /** A MacroJob is still unclaimed at the job's start and this peer is not one of its first claimants: look again soon. */
  | { kind: 'wait' }

function compareBytes (a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] - b[i]
  }
  return a.length - b.length
}

/**
 * Where a processor looks for work in a job (DESIGN 7, with a different order, docs/coordination.md "Room choice"):
 * 0. a room whose queue this peer owns with open items (only its owner serves it until a member asks, and a peer
 * that took a queue over while it worked elsewhere would otherwise hold those items unserved); 1. of the rooms with
 * open items (announced within `ttlMs`, one this peer is in, or one being opened) and the open MacroJob leases whose
 * room was not announced recently, the one where this peer's share is largest: a room's open items over its members
 * with this peer (at least one for a room it is not in), a claim's remaining MicroJobs alone. So peers spread over
 * the MacroJobs first (a room of one costs no room message at all) and then into the least crowded rooms; equal shares in this peer's job start order (peers that
 * choose at the same moment from the same view go different ways), and a peer after the first M of that order
 * claims nothing while the job is new to it and a MacroJob is still unclaimed: it joins the room of its rotation's
 * MacroJob once that is being opened, and waits otherwise; 2. otherwise discovery.
 */
export function chooseRoom (view: RoomChoiceView): RoomChoice {
  for (const [m, room] of view.rooms) {
    if (room.owned === true && room.hasOpen && !room.complete) return { kind: 'join', macroIndex: m }
  }
  const claims = claimable(view)
  const joins = joinable(view)
  if (view.waitForClaims === true && claims.size > 0) {
    // its own MacroJob of the rotation being opened already, it joins that room without waiting for the other claims
    const own = firstRanked(view)
    return joins.has(own) && !claims.has(own) ? { kind: 'join', macroIndex: own } : { kind: 'wait' }
  }
  const join = largestShare(joins, view.rank)
  const claim = largestShare(claims, view.rank)
  if (claim != null && (join == null || claim.share > join.share)) return { kind: 'claim', macroIndex: claim.m }
  if (join != null) return { kind: 'join', macroIndex: join.m }
  return { kind: 'discover' }
}

/**
 * The open items per member (this peer included) of each room it could join now. A room this peer is not in counts
 * only with at least one open item per member with this peer: fewer are the last items of its members' own turns,
 * and every idle peer of the job hears the same announcement, so each such room drew all of them at once (a job's
 * tail at 16 peers: 13 joined a room with 2 open items, each with its doc's catch-up from the room's two members,
 * which held the room's last MicroJobs up by 2 s; docs/coordination.md, Twenty-fifth round).
 */
function joinable (view: RoomChoiceView): Map<number, number> {
  const open = new Map<number, number>()
  for (const [m, a] of view.announced) {
    if (a.open > 0 && view.now - a.at < view.ttlMs && !view.macroDone(m)) open.set(m, a.open)
  }
  for (const [m, room] of view.rooms) {
    if (room.hasOpen && !room.complete) open.set(m, room.open ?? open.get(m) ?? 1)
  }
  for (let m = 0; m < view.macroJobs; m++) {
    if (!open.has(m) && !view.rooms.has(m) && view.opening?.(m) === true) open.set(m, view.remaining?.(m) ?? 1)
  }
  const shares = new Map<number, number>()
  for (const [m, n] of open) {
    // a room this peer is not in has its owner in it, whether or not its subscription has reached this peer yet
    const others = Math.max(view.members?.(m) ?? 0, view.rooms.has(m) ? 0 : 1)
    if (!view.rooms.has(m) && !worthJoining(n, others)) continue
    shares.set(m, n / (others + 1))
  }
  return shares
}

/**
 * Whether a peer not in a room gains by joining it: at least one of its `open` items for each of its `members` (who
 * are in it) and the joiner. Fewer are the last items of the members' own turns.
 */
function worthJoining (open: number, members: number): boolean {
  return open >= members + 1
}

/** The remaining MicroJobs of each MacroJob it could claim now (its share: it would be alone in the room). */
function claimable (view: RoomChoiceView): Map<number, number> {
  const shares = new Map<number, number>()
  for (let m = 0; m < view.macroJobs; m++) {
    const a = view.announced.get(m)
    if (view.macroDone(m) || !view.macroLeaseOpen(m) || (a != null && view.now - a.at < view.ttlMs)) continue
    shares.set(m, view.remaining?.(m) ?? 1)
  }
  return shares
}

/** The MacroJob first in this peer's start order (its rotation's). */
function firstRanked (view: RoomChoiceView): number {
  let best = 0
  for (let m = 1; m < view.macroJobs; m++) {
    if (compareBytes(view.rank(m), view.rank(best)) < 0) best = m
  }
  return best
}

/** The candidate with the largest share; equal shares in this peer's start order. */
function largestShare (shares: Map<number, number>, rank: (m: number) => Uint8Array): { m: number, share: number } | undefined {
  let best: { m: number, share: number, rank: Uint8Array } | undefined
  for (const [m, share] of shares) {
    if (best != null && share < best.share) continue
    const r = rank(m)
    if (best == null || share > best.share || compareBytes(r, best.rank) < 0) best = { m, share, rank: r }
  }
  return best
}
