import { createHash } from 'node:crypto'

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
  rooms: ReadonlyMap<number, { hasOpen: boolean, complete: boolean, owned?: boolean }>
  /** Every MicroJob of the MacroJob has a result. */
  macroDone(macroIndex: number): boolean
  /** Nobody holds the MacroJob lease. */
  macroLeaseOpen(macroIndex: number): boolean
  /** This peer's preference for a MacroJob (lower first), see {@link macroRank}. */
  rank(macroIndex: number): Uint8Array
  /** [0, 1); default Math.random. */
  random?(): number
}

export type RoomChoice =
  /** Join the room of a MacroJob whose queue has open items (announced recently, or this peer is in it). */
  | { kind: 'join', macroIndex: number }
  /** Claim the lease of an open MacroJob nobody serves and create its queue. */
  | { kind: 'claim', macroIndex: number }
  /** Nothing known to be open: ask the job's rooms to announce themselves. */
  | { kind: 'discover' }

/** This peer's preference for a MacroJob: sha256(peerId/jobId/macroIndex), so concurrent starters spread out. */
export function macroRank (peerId: string, jobId: string, macroIndex: number): Uint8Array {
  return createHash('sha256').update(`${peerId}/${jobId}/${macroIndex}`).digest()
}

function compareBytes (a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] - b[i]
  }
  return a.length - b.length
}

/**
 * Where a processor looks for work in a job (DESIGN 7): 0. a room whose queue this peer owns with open items (only
 * its owner serves it until a member asks, and a peer that took a queue over while it worked elsewhere would
 * otherwise hold those items unserved); 1. a room with open items, announced within `ttlMs` or one this peer is in
 * (a random one: members spread over the served rooms); 2. an open MacroJob lease whose room was not announced
 * recently, in this peer's own hash order; 3. otherwise discovery.
 */
export function chooseRoom (view: RoomChoiceView): RoomChoice {
  const random = view.random ?? Math.random
  for (const [m, room] of view.rooms) {
    if (room.owned === true && room.hasOpen && !room.complete) return { kind: 'join', macroIndex: m }
  }
  const joinable: number[] = []
  for (const [m, a] of view.announced) {
    if (a.open > 0 && view.now - a.at < view.ttlMs && !view.macroDone(m)) joinable.push(m)
  }
  for (const [m, room] of view.rooms) {
    if (room.hasOpen && !room.complete && !joinable.includes(m)) joinable.push(m)
  }
  if (joinable.length > 0) {
    return { kind: 'join', macroIndex: joinable[Math.floor(random() * joinable.length)] }
  }
  let best: { m: number, rank: Uint8Array } | undefined
  for (let m = 0; m < view.macroJobs; m++) {
    const a = view.announced.get(m)
    if (view.macroDone(m) || !view.macroLeaseOpen(m) || (a != null && view.now - a.at < view.ttlMs)) continue
    const rank = view.rank(m)
    if (best == null || compareBytes(rank, best.rank) < 0) best = { m, rank }
  }
  if (best != null) {
    return { kind: 'claim', macroIndex: best.m }
  }
  return { kind: 'discover' }
}
