import { logger } from '@libp2p/logger'
import { DEFAULT_ANNOUNCEMENT_TTL_MS, DEFAULT_COMPLETION_WINDOW_MS, DEFAULT_DISCOVERY_MS, DEFAULT_IDLE_MS, DEFAULT_START_POLL_MS, DEFAULT_START_WAIT_MS } from './constants.js'
import { jobRunLimit } from './poison.js'
import { chooseRoom } from './room-choice.js'
import { startOrder } from './start-order.js'
import { countStates, jobsTopic, LeaseLostError, macroKey, macroOfResultKey, MacroRoom, macroTopic, microKey, roomTopic } from '../coord/index.js'
import type { JobContext } from './job-context.js'
import type { RoomChoice, RoomChoiceView } from './room-choice.js'
import type { ProcessorEvents } from './types.js'
import type { CoordMessage, CoordMetrics, Leases, RecordVerifier, RoomPubSub } from '../coord/index.js'
import type { TrafficCounters } from '../protocol/index.js'

const log = logger('jobmesh:processor:rooms')

/** What joining and finding rooms needs of the processor. */
export interface RoomsHost {
  readonly pubsub: RoomPubSub
  /** This peer's PeerId string. */
  readonly self: string
  readonly leases: Leases
  readonly verifier: RecordVerifier
  readonly metrics: CoordMetrics
  readonly counters?: TrafficCounters
  readonly heartbeatMs?: number
  readonly ownerTimeoutMs?: number
  readonly maxBatch?: number
  readonly maxBytes: number
  readonly discoveryMs?: number
  readonly idleMs?: number
  /** Every owner seen per `jobId/macroIndex`. */
  readonly owners: Map<string, Set<string>>
  clock(): number
  /** When a signed gossip message from `peer` was last received. */
  lastSeen(peer: string): number | undefined
  /** Who may publish on a job's rooms and `/macro` (`ProcessorInit.mayCoordinate`). Default: anyone. */
  mayCoordinate?(peerId: string): Promise<boolean>
  /** ProcessorInit.runLimitMs: with the spec's, how long a room believes another peer's locks (`RoomInit.runLimitMs`). */
  runLimitMs?(jobId: string): number | undefined
  publish(topic: string, msg: Partial<CoordMessage>): void
  dispatch<K extends 'room:owner' | 'ownership'>(type: K, detail: ProcessorEvents[K]): void
}

/** The room of MacroJob `macroIndex` (joined and started on first use), its owners reported as events. */
export function joinRoom (host: RoomsHost, ctx: JobContext, macroIndex: number): MacroRoom {
  let room = ctx.rooms.get(macroIndex)
  if (room != null) return room
  const macro = ctx.slicing.macroJobs[macroIndex]
  room = new MacroRoom({
    pubsub: host.pubsub,
    peerId: host.self,
    leases: host.leases,
    verifier: host.verifier,
    macroLeases: ctx.macroLeases,
    microLeases: ctx.microLeases,
    progress: ctx.progress,
    metrics: host.metrics,
    clock: host.clock,
    lastSeen: (peer) => host.lastSeen(peer),
    counters: host.counters,
    lockWith: (lock) => { ctx.batch.flush({ macroIndex, fn: lock }) },
    mayPublish: host.mayCoordinate
  }, {
    jobId: ctx.job.key,
    macroIndex,
    macroId: macro.macroId,
    size: macro.size,
    heartbeatMs: host.heartbeatMs,
    ownerTimeoutMs: host.ownerTimeoutMs,
    maxBatch: host.maxBatch,
    maxMessageBytes: host.maxBytes,
    runLimitMs: jobRunLimit(host, ctx)
  })
  const key = `${ctx.job.jobId}/${macroIndex}`
  const owners = host.owners.get(key) ?? new Set<string>()
  host.owners.set(key, owners)
  room.addEventListener('snapshot', (evt) => {
    owners.add(evt.detail.owner)
    host.dispatch('room:owner', { jobId: ctx.job.jobId, macroIndex, owner: evt.detail.owner, epoch: evt.detail.epoch, term: evt.detail.term })
  })
  room.addEventListener('ownership', (evt) => {
    owners.add(host.self)
    host.dispatch('room:owner', { jobId: ctx.job.jobId, macroIndex, owner: host.self, epoch: evt.detail.epoch, term: evt.detail.term })
    host.dispatch('ownership', { jobId: ctx.job.jobId, macroIndex, epoch: evt.detail.epoch, term: evt.detail.term })
  })
  room.addEventListener('complete', () => {
    ctx.summarize(macroIndex)
    ctx.wake?.()
  })
  ctx.rooms.set(macroIndex, room)
  room.start()
  return room
}

/** What the room choice sees of the job now (room-choice.ts). */
function choiceView (host: RoomsHost, ctx: JobContext, now: number): RoomChoiceView {
  const rooms = new Map<number, { hasOpen: boolean, complete: boolean, owned: boolean, open: number }>()
  for (const [m, room] of ctx.rooms) {
    const open = room.state == null ? 0 : countStates(room.state.states).open
    rooms.set(m, { hasOpen: open > 0, complete: room.isComplete, owned: room.isOwner, open })
  }
  const macroJobs = ctx.slicing.macroJobs
  const members = (m: number): number => host.pubsub.getSubscribers?.(roomTopic(ctx.job.key, macroJobs[m].macroId)).length ?? 0
  // before its first result a MacroJob with a peer in its room is being opened: a claimant subscribes to the room
  // before it writes the lease, and its subscription reaches the other peers sooner than the lease's CRDT update
  const started = (m: number): boolean => ctx.progress.doneIn(m) > 0
  const early = now < (ctx.firstChoiceAt ?? now) + DEFAULT_START_WAIT_MS
  const heldByOther = (m: number): boolean => {
    const lease = ctx.macroLeases.get(macroKey(m))
    return lease != null && lease.owner !== host.self && !ctx.macroLeases.isOpen(macroKey(m))
  }
  // the network's processors (known long before the job) and the job's peers: at a new job the /macro subscriptions
  // are still on their way, and a peer that saw none thought itself first (6 of 16 claimed MacroJob 0 at once)
  const subscribers = (topic: string): string[] => host.pubsub.getSubscribers?.(topic).map(String) ?? []
  const peers = new Set([...subscribers(jobsTopic()), ...subscribers(macroTopic(ctx.job.key))])
  const order = startOrder(host.self, [...peers], ctx.job.jobId, macroJobs.length)
  return {
    now,
    macroJobs: macroJobs.length,
    ttlMs: DEFAULT_ANNOUNCEMENT_TTL_MS,
    announced: ctx.announced,
    rooms,
    // a summary is a hint for the MacroJobs whose doc is not read here; where it is, the results decide
    macroDone: (m) => ctx.rooms.get(m)?.isComplete === true || macroDone(ctx, m) || ctx.progress.hinted(m),
    macroLeaseOpen: (m) => ctx.macroLeases.isOpen(macroKey(m)) && (started(m) || members(m) === 0),
    members,
    remaining: (m) => macroJobs[m].size - ctx.progress.doneIn(m),
    // a peer outside a room sees no result of it (they live in the MacroJob's doc): after the start, what is open in
    // other rooms comes from their announcements
    opening: (m) => early && !started(m) && (heldByOther(m) || members(m) > 0),
    rank: order.rank,
    waitForClaims: order.position >= macroJobs.length && now < (ctx.firstChoiceAt ?? now) + DEFAULT_START_WAIT_MS
  }
}

/** Whether this peer left the job's round (a call, not a property read: it changes across the awaits of a choice). */
function hasLeft (ctx: JobContext): boolean {
  return ctx.left === true
}

/** Most polls of one start wait (each may end early, woken by the job's progress): four times the wait's length. */
const START_WAIT_POLLS = 4 * Math.ceil(DEFAULT_START_WAIT_MS / DEFAULT_START_POLL_MS)

/**
 * Picks a MacroJob room with open items where this peer's share is largest (room-choice.ts): joins it, or claims an
 * open MacroJob lease and creates its queue; with nothing known to be open, asks the rooms to announce themselves.
 */
export async function findRoom (host: RoomsHost, ctx: JobContext, signal: AbortSignal, idleRounds = 0): Promise<MacroRoom | undefined> {
  // a job left while this choice waited (over on chain, a new round: job-rounds.ts) is not joined or claimed: its
  // rooms are closed, and its docs are being closed (a MacroJob doc opened now would stay open, its room subscribed)
  if (hasLeft(ctx)) return undefined
  let now = host.clock()
  ctx.firstChoiceAt ??= now
  followSummaries(ctx)
  let choice = chooseRoom(choiceView(host, ctx, now))
  // the job's first claimants are opening its MacroJobs (start-order.ts): a short wait, not an idle round; bounded by
  // polls as well as by the clock, so a clock that stands still (a test's) cannot hold the loop here
  for (let polls = 0; choice.kind === 'wait' && !signal.aborted && polls < START_WAIT_POLLS; polls++) {
    await waitFor(ctx, signal, DEFAULT_START_POLL_MS)
    now = host.clock()
    choice = chooseRoom(choiceView(host, ctx, now))
  }
  if (choice.kind === 'wait' || hasLeft(ctx)) return undefined
  log('%s chooses %o', host.self.slice(-6), choice)
  leaveLostClaims(ctx, choice)
  if (choice.kind === 'join') {
    ctx.announced.delete(choice.macroIndex)
    await ctx.openMacro(choice.macroIndex, signal)
    return hasLeft(ctx) ? undefined : joinRoom(host, ctx, choice.macroIndex)
  }
  if (choice.kind === 'claim') {
    const m = choice.macroIndex
    try {
      await ctx.openMacro(m, signal)
      if (hasLeft(ctx)) return undefined
      const room = joinRoom(host, ctx, m)
      const lease = await room.claim({ signal })
      const rival = ctx.announced.get(m)
      if (rival != null && rival.owner !== host.self && rival.at >= now) {
        return room // another peer opened this room while we settled: join it
      }
      // not announced on `/macro`: the job's other peers find a room being opened by its subscribers and its lease
      // (their start order joins them to it), later ones by asking (`openMacro`); an announcement of every new room
      // went to every peer of the job and drew joiners out of their rotation (Twenty-fourth round)
      if (room.state == null || room.state.epoch < lease.term) room.create(lease)
      return room
    } catch (err) {
      if (signal.aborted) throw err
      log('claim of MacroJob %d failed: %s', m, (err as Error).message)
      if ((err as Error).name === LeaseLostError.name) ctx.lostClaims.add(m)
      return undefined
    }
  }
  // ask rooms to announce themselves; an answer wakes the wait, so asking less often while nothing is open (the
  // job's tail) costs no latency, only fewer messages to every peer of the job. An answer that wakes the loop
  // without opening anything does not make it ask again before the interval is over (every owner answers).
  const discoveryMs = host.discoveryMs ?? DEFAULT_DISCOVERY_MS
  const interval = Math.max(discoveryMs, Math.min(discoveryMs * 2 ** Math.min(idleRounds, 4), host.idleMs ?? DEFAULT_IDLE_MS))
  if (now - ctx.discoveredAt >= interval) {
    ctx.discoveredAt = now
    host.publish(macroTopic(ctx.job.key), { openMacro: { nonce: BigInt(now) } })
  }
  await waitFor(ctx, signal, interval)
  return undefined
}

/**
 * Leaves a room this peer has nothing more to do in (its last turn there came back empty and it does not own the
 * queue): it stops receiving the room's snapshots and requests, and no longer counts as a member when the owner
 * sizes the last round's shares. Its finished items go to the owner as it leaves; it can join again later.
 */
export function leaveRoom (ctx: JobContext, room: MacroRoom): void {
  if (room.isOwner || ctx.rooms.get(room.macroIndex) !== room) return
  ctx.rooms.delete(room.macroIndex)
  room.close()
}

/**
 * A peer that lost a claim is subscribed to the winner's room, so it counts as one of its members for every other
 * peer's room choice (which then avoids that room) and receives its snapshots. It stays when this choice joins that
 * room, and leaves it when the choice goes anywhere else.
 */
function leaveLostClaims (ctx: JobContext, choice: RoomChoice): void {
  for (const m of ctx.lostClaims) {
    ctx.lostClaims.delete(m)
    if (choice.kind === 'join' && choice.macroIndex === m) continue
    const room = ctx.rooms.get(m)
    if (room != null) leaveRoom(ctx, room)
  }
}

/**
 * Follows up the MacroJob summaries. A summarized doc open here without all its results is exchanged again with the
 * peers that hold it (throttled, `resyncMacro`): a peer that had opened it empty may have answered its catch-up first,
 * and a finished MacroJob's doc gets no more turns to bring the rest. The doc of a summarized MacroJob nobody ever
 * claimed (no lease of it in the job doc) is read at once: no room finished it, so the summary is not believed.
 * The docs of other summarized MacroJobs are not read here: their summaries end the job here, and are checked later
 * (summary-check.ts). Called on each summary and each room choice.
 */
export function followSummaries (ctx: JobContext): void {
  for (let m = 0; m < ctx.slicing.macroJobs.length; m++) {
    if (!ctx.progress.summarized(m)) continue
    if (ctx.progress.hinted(m)) {
      if (!ctx.unbelieved.has(m) && !everClaimed(ctx, m)) {
        ctx.unbelieved.add(m)
        // a read that failed is tried again on the next call
        ctx.readMacro(m).catch((err: Error) => {
          ctx.unbelieved.delete(m)
          log('doc of MacroJob %d of %s not read: %s', m, ctx.job.jobId, err.message)
        })
      }
    } else if (!macroDone(ctx, m)) {
      void ctx.resyncMacro(m)
    }
  }
}

/**
 * A result this peer wrote (`microjob:done`, local) finished its MacroJob: remembered (`ownFinishAt`) for
 * {@link checkFinishedLast}.
 */
export function noteOwnResult (ctx: JobContext, key: string, now: number): void {
  const m = macroOfResultKey(key)
  if (m == null || !macroDone(ctx, m)) return
  ctx.ownFinishAt = now
  checkFinishedLast(ctx, now)
}

/**
 * This peer finished a room with its own result, and every MacroJob was finished here or summarized then or within
 * the completion window after (another room's summary that crossed its own): it finalizes (job-end.ts), even when the
 * last MacroJobs' results reach it after that window (the catch-up of a doc summarized at about the same time).
 * Called at its own finish and on each summary.
 */
export function checkFinishedLast (ctx: JobContext, now: number): void {
  if (ctx.ownFinishAt == null || now - ctx.ownFinishAt > DEFAULT_COMPLETION_WINDOW_MS) return
  if (ctx.slicing.macroJobs.every((_, m) => macroDone(ctx, m) || ctx.progress.summarized(m))) ctx.finishedLast = true
}

/**
 * Every MacroJob of the job is finished as far as this peer can tell: by its results here, or by its summary when this
 * peer does not hold its doc (`JobProgress.hinted`) and somebody had claimed it when the summary came here.
 */
export function finishedHere (ctx: JobContext): boolean {
  return ctx.slicing.macroJobs.every((_, m) => (ctx.progress.hinted(m) && !ctx.unbelieved.has(m) && everClaimed(ctx, m)) || macroDone(ctx, m))
}

/** MacroJob `m` was claimed by somebody: a valid lease of it is in the job doc (a released one stays, expiring at 0). */
function everClaimed (ctx: JobContext, m: number): boolean {
  return ctx.macroLeases.get(macroKey(m)) != null
}

function isMacroIndex (ctx: JobContext, m: number): boolean {
  return Number.isInteger(m) && m >= 0 && m < ctx.slicing.macroJobs.length
}

/** Every MicroJob of MacroJob `m` has a result (the per-MacroJob count first: no scan while it is short). */
export function macroDone (ctx: JobContext, m: number): boolean {
  const size = ctx.slicing.macroJobs[m].size
  if (ctx.progress.doneIn(m) < size) return false
  for (let i = 0; i < size; i++) {
    if (!ctx.progress.has(microKey(m, i))) return false
  }
  return true
}

/** Waits `ms`, or until the job context is woken (a room announced, a result or a completed room). */
export async function waitFor (ctx: JobContext, signal: AbortSignal, ms: number): Promise<void> {
  if (signal.aborted) return
  await new Promise<void>(resolve => {
    const timer = setTimeout(done, ms)
    function done (): void {
      clearTimeout(timer)
      // the loop's signal lives as long as the processor: a listener left behind per wait is a leak
      signal.removeEventListener('abort', done)
      resolve()
    }
    ctx.wake = done
    signal.addEventListener('abort', done, { once: true })
  })
  ctx.wake = undefined
}

/** A message on the job's `/macro` topic: a room announcement (remembered, wakes the loop) or a request for them. */
export function onMacroMessage (host: RoomsHost, ctx: JobContext, msg: CoordMessage, from: string): void {
  if (msg.room != null && !isMacroIndex(ctx, msg.room.macroIndex)) {
    // any peer may publish here: a MacroJob the job does not have would be chosen, and read, on every room choice
    log('%s: an announcement of MacroJob %d from %s, which the job does not have: dropped', ctx.job.jobId, msg.room.macroIndex, from)
  } else if (msg.room != null) {
    ctx.announced.set(msg.room.macroIndex, { open: msg.room.open, at: host.clock(), owner: from })
    ctx.wake?.()
  }
  if (msg.openMacro != null) {
    // the answers go to every subscriber of the topic, this peer included: another peer's request counts as this
    // peer's own, so idle peers of a job ask about once per interval between them, not once each (its tail)
    ctx.discoveredAt = Math.max(ctx.discoveredAt, host.clock())
    for (const room of ctx.rooms.values()) {
      const a = room.announcement()
      if (a != null && a.open > 0) host.publish(macroTopic(ctx.job.key), { room: a })
    }
  }
}
