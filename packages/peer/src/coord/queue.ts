import { EVEN_SPLIT_MIN_ITEMS } from './constants.js'
import { MalformedMessageError } from './errors.js'
import { multihashOfPeerId, peerIdOfMultihash } from '../protocol/index.js'
import type { QueueSnapshot as WireSnapshot } from './pb/coord.js'

/** Item states, 2 bits each on the wire. */
export const OPEN = 0
export const LOCKED = 1
export const DONE = 2

export interface QueueLock {
  holder: string
  /** The MicroJob lease term written in the CRDT for this lock (the result's fencing token). */
  leaseTerm: number
}

/** A decoded queue snapshot: the in-memory MicroJob queue of one MacroJob. */
export interface QueueState {
  macroIndex: number
  /** MacroJob lease term the queue lives under (bumped by a failover). */
  epoch: number
  /** Ownership term inside the epoch (bumped by each handoff). */
  term: number
  owner: string
  prevOwner: string
  version: number
  /** One byte per item: OPEN, LOCKED or DONE. */
  states: Uint8Array
  locks: Map<number, QueueLock>
  pending: string[]
  /** Signed MacroJob lease record (first snapshot of an epoch). */
  macroLease?: Uint8Array
}

/** Packs item states at 2 bits each. */
export function packStates (states: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(states.length / 4))
  for (let i = 0; i < states.length; i++) {
    out[i >> 2] |= (states[i] & 3) << ((i & 3) * 2)
  }
  return out
}

/** Unpacks `size` item states; throws MalformedMessageError on a wrong length or an unknown state. */
export function unpackStates (packed: Uint8Array, size: number): Uint8Array {
  if (packed.length !== Math.ceil(size / 4)) {
    throw new MalformedMessageError(`state vector of ${packed.length} bytes for ${size} items`)
  }
  const out = new Uint8Array(size)
  for (let i = 0; i < size; i++) {
    const s = (packed[i >> 2] >> ((i & 3) * 2)) & 3
    if (s === 3) {
      throw new MalformedMessageError(`unknown item state at ${i}`)
    }
    out[i] = s
  }
  return out
}

/** The lock holders, each once, and each lock naming its holder by position (a peer's 38 bytes once per snapshot). */
function locksToWire (locks: Map<number, QueueLock>): Pick<WireSnapshot, 'locks' | 'holders'> {
  const positions = new Map<string, number>()
  const holders: Uint8Array[] = []
  const wire = [...locks].map(([index, l]) => {
    let holder = positions.get(l.holder)
    if (holder == null) {
      holder = holders.push(multihashOfPeerId(l.holder)) - 1
      positions.set(l.holder, holder)
    }
    return { index, holder, leaseTerm: l.leaseTerm }
  })
  return { locks: wire, holders } as Pick<WireSnapshot, 'locks' | 'holders'>
}

export function toWire (state: QueueState): WireSnapshot {
  return {
    ...locksToWire(state.locks),
    macroIndex: state.macroIndex,
    epoch: state.epoch,
    term: state.term,
    owner: multihashOfPeerId(state.owner),
    prevOwner: multihashOfPeerId(state.prevOwner),
    version: state.version,
    states: packStates(state.states) as Uint8Array<ArrayBuffer>,
    pending: state.pending.map(multihashOfPeerId),
    macroLease: state.macroLease
  } as WireSnapshot
}

export function fromWire (wire: WireSnapshot, size: number, macroIndex: number): QueueState {
  if (wire.macroIndex !== macroIndex) {
    throw new MalformedMessageError(`snapshot for MacroJob ${wire.macroIndex} in room ${macroIndex}`)
  }
  if (wire.owner.length === 0 || wire.prevOwner.length === 0) {
    throw new MalformedMessageError('snapshot without owner')
  }
  const states = unpackStates(wire.states, size)
  const holders = wire.holders.map(peerIdOfMultihash)
  const locks = new Map<number, QueueLock>()
  for (const l of wire.locks) {
    if (l.index >= size || states[l.index] !== LOCKED) {
      throw new MalformedMessageError(`lock on item ${l.index} that is not locked`)
    }
    const holder = holders[l.holder]
    if (holder == null) throw new MalformedMessageError(`lock on item ${l.index} names holder ${l.holder} of ${holders.length}`)
    locks.set(l.index, { holder, leaseTerm: l.leaseTerm })
  }
  return {
    macroIndex,
    epoch: wire.epoch,
    term: wire.term,
    owner: peerIdOfMultihash(wire.owner),
    prevOwner: peerIdOfMultihash(wire.prevOwner),
    version: wire.version,
    states,
    locks,
    pending: wire.pending.map(peerIdOfMultihash),
    macroLease: wire.macroLease
  }
}

/** Orders snapshots by (epoch, term, version), ties broken by owner so every peer picks the same one. */
export function compareStates (a: QueueState, b: QueueState): number {
  return a.epoch - b.epoch || a.term - b.term || a.version - b.version ||
    (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0)
}

/** What to do with a received snapshot. */
export type Verdict =
  /** Newer and from the right sender: keep it. */
  | 'accept'
  /** Same (epoch, term, version) re-sent by the owner: owner is alive. */
  | 'heartbeat'
  /** Older than the kept snapshot. */
  | 'stale'
  /** The gossipsub sender is not who the snapshot says sent it (or a bad epoch lease). */
  | 'forged'
  /** A later term of this epoch: a gap in the chain; keep it aside until the gap fills. */
  | 'future'

/** A handoff message: the snapshot of a turn, sent by the owner that passed the queue on. */
export function isHandoff (state: QueueState, from: string): boolean {
  return state.term > 0 && from === state.prevOwner && state.owner !== state.prevOwner
}

/**
 * The acceptance rule. `epochValid(next, from)` checks that a snapshot of a newer epoch (or the first one seen) is
 * backed by the MacroJob lease of that term in the CRDT, held by the epoch's root; undefined = cannot tell yet (the
 * snapshot waits as `future` until the lease syncs).
 */
export function judge (current: QueueState | undefined, next: QueueState, from: string,
  epochValid: (next: QueueState, from: string) => boolean | undefined): Verdict {
  // a handoff passes the queue to another peer: only an epoch's opening snapshot (term 0) names its owner its own
  // previous owner
  if (next.term > 0 && next.owner === next.prevOwner) {
    return 'forged'
  }
  const sentByChain = from === next.owner || from === next.prevOwner
  if (current == null) {
    if (!sentByChain) {
      return 'forged'
    }
    // a later turn is taken first from its handoff: its owner's own word (any peer's) waits until one comes
    if (next.term > 0 && !isHandoff(next, from)) {
      return 'future'
    }
    const valid = epochValid(next, from)
    return valid === true ? 'accept' : valid === false ? 'forged' : 'future'
  }
  if (next.epoch < current.epoch) {
    return 'stale'
  }
  if (next.epoch > current.epoch) {
    if (!sentByChain) {
      return 'forged'
    }
    const valid = epochValid(next, from)
    return valid === true ? 'accept' : valid === false ? 'forged' : 'future'
  }
  const cmp = compareStates(next, current)
  if (cmp === 0 && from === current.owner) {
    return 'heartbeat'
  }
  if (next.term < current.term || (next.term === current.term && next.version <= current.version)) {
    return 'stale'
  }
  if (next.term === current.term) {
    return from === current.owner && next.owner === current.owner ? 'accept' : 'forged'
  }
  if (next.term === current.term + 1) {
    if (from === current.owner && next.prevOwner === from) {
      return 'accept'
    }
    // the new owner's own snapshot overtook the handoff from the current owner (different senders, no ordering)
    return from === next.owner && next.prevOwner === current.owner ? 'future' : 'forged'
  }
  return from === next.prevOwner || from === next.owner ? 'future' : 'forged'
}

/** Counts items per state. */
export function countStates (states: Uint8Array): { open: number, locked: number, done: number } {
  let open = 0
  let locked = 0
  let done = 0
  for (const s of states) {
    if (s === OPEN) open++
    else if (s === LOCKED) locked++
    else done++
  }
  return { open, locked, done }
}

/** What the owner knows when it locks a batch: the queue's counts and who works on it. */
export interface BatchShare {
  /** Items of the queue (its MacroJob's MicroJobs). */
  size: number
  /** Open items. */
  open: number
  /** Locked items (running or about to run on some member). */
  locked: number
  /** Of those, locked by the requester itself (the last of its previous turn, still running). */
  ownLocked: number
  /** Members the owner knows: pending requesters, lock holders, itself. */
  members: number
  /** Other peers on the room's topic (members that have not asked yet). */
  roomPeers: number
}

/**
 * The owner's fair batch (DESIGN 7): at most `want` and `maxBatch`, at least 1 while anything is open, and at most
 * a fair share, which depends on the queue's size (docs/coordination.md, Handoff rules):
 * - a queue of {@link EVEN_SPLIT_MIN_ITEMS} or more stays full-size until its last round, which is split so every
 *   member finishes together (open and locked items evenly over the members, the room's subscribers counted, less
 *   what the requester still holds): about O / want + m turns instead of a geometric tail of ~2 m ln(O);
 * - a smaller queue gives half of an even split of the open items over the members known, down to single items at
 *   the tail: its tail is a few turns anyway, and single items spread a small job over the peers (a first asker
 *   alone in the room would otherwise take all of it).
 */
export function fairBatch (share: BatchShare, want: number, maxBatch: number): number {
  if (share.open <= 0) return 0
  const fair = share.size >= EVEN_SPLIT_MIN_ITEMS ? evenShare(share) : halfShare(share)
  return Math.max(1, Math.min(want, maxBatch, fair, share.open))
}

function evenShare (s: BatchShare): number {
  return Math.ceil((s.open + s.locked) / Math.max(1, s.members, s.roomPeers + 1)) - s.ownLocked
}

function halfShare (s: BatchShare): number {
  return Math.floor(s.open / (Math.max(1, s.members) * 2))
}
