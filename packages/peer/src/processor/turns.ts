import { createHash } from 'node:crypto'
import { logger } from '@libp2p/logger'
import { countStates, macroTopic, microKey } from '../coord/index.js'
import { CHECK_RUN_TIMEOUT_FACTOR, DEFAULT_IDLE_MS, DEFAULT_TURN_WAIT_MS, DRAINED_IDLE_ROUNDS, MAX_IDLE_ROUNDS } from './constants.js'
import { pastCutoff } from './deadline.js'
import { heldLeases } from './held-leases.js'
import { jobRunLimit } from './poison.js'
import { rawOutputCid } from '../storage/index.js'
import { fromHex, toHex, workTag } from '../protocol/index.js'
import type { MicroJobExecutor, MicroJobTask } from '../executor/index.js'
import type { HeldLeases } from './held-leases.js'
import type { JobContext } from './job-context.js'
import type { FinishedMicroJob } from './result-batch.js'
import type { ProcessorEvents } from './types.js'
import type { CoordMessage, LockedItem, MacroRoom } from '../coord/index.js'

const log = logger('jobmesh:processor:turns')

/** What the turn loop needs of its processor. */
export interface TurnHost {
  /** This peer's PeerId string. */
  readonly self: string
  readonly executor: MicroJobExecutor
  storeOutput?(bytes: Uint8Array): Promise<string | undefined>
  /** MicroJobs asked for per turn. Default: about two seconds of work at the measured run time (turn-size.ts). */
  readonly want?: number
  /** Peers working on the job (this one included), as far as this peer knows. */
  jobPeers?(ctx: JobContext): number
  readonly idleMs?: number
  /** A member's turn unanswered this long (ms) leaves the room. Default {@link DEFAULT_TURN_WAIT_MS}. */
  readonly turnWaitMs?: number
  /** A held MicroJob lease (running, or waiting in its turn) is renewed once it is this old (ms; held-leases.ts). */
  readonly renewMs: number
  /** ProcessorInit.runLimitMs. */
  runLimitMs?(jobId: string): number | undefined
  clock(): number
  /** The time deadlines are read against (ProcessorInit.deadlineClock). */
  deadlineClock(): number
  /**
   * Another job, not drained here, is open to this peer (job-choice.ts `otherOpenJob`): after
   * {@link DRAINED_IDLE_ROUNDS} idle rounds in this one it goes there. Default: never.
   */
  otherOpenJob?(ctx: JobContext): boolean
  /** Before this peer's first turn of the job: its join on chain (ProcessorInit.joinJob). Default: none. */
  joinJob?(ctx: JobContext, signal: AbortSignal): Promise<void>
  /** A room of the job with open items (joined, or claimed), or undefined after waiting for announcements. */
  findRoom(ctx: JobContext, signal: AbortSignal, idleRounds: number): Promise<MacroRoom | undefined>
  /** Leaves a room whose last turn for this peer came back empty (unless this peer owns its queue). */
  leaveRoom(ctx: JobContext, room: MacroRoom): void
  /** Waits `ms`, or less when the job context is woken (a room announced, a result arrived). */
  waitFor(ctx: JobContext, signal: AbortSignal, ms: number): Promise<void>
  /** A MicroJob failed here (poison isolation). */
  itemFailed(ctx: JobContext, item: LockedItem, err: Error): void
  /** Publish a `completed` notice per result write (ProcessorInit.announceComplete). */
  readonly announceComplete: boolean
  publish(topic: string, msg: Partial<CoordMessage>): void
  dispatch<K extends 'microjob:start' | 'microjob:error' | 'microjob:done' | 'turn:unanswered'>(type: K, detail: ProcessorEvents[K]): void
}

/** A MicroJob this peer finished, as its complete notice lists it. */
interface Finished { index: number, term: number, outputHash: Uint8Array<ArrayBuffer> }

/**
 * Results are in the job doc: the rooms and listeners learn of them, and (with `announceComplete`) the job's peers
 * get one "MicroJobs complete" notice per MacroJob on the job's topic (DESIGN 7 step 5).
 */
export function reportWritten (host: TurnHost, ctx: JobContext, written: FinishedMicroJob[]): void {
  ctx.lastLocalResult = host.clock()
  const byMacro = new Map<number, Finished[]>()
  for (const f of written) {
    ctx.rooms.get(f.macroIndex)?.done(f.index)
    const list = byMacro.get(f.macroIndex) ?? []
    list.push({ index: f.index, term: f.leaseTerm, outputHash: f.outputHash })
    byMacro.set(f.macroIndex, list)
    host.dispatch('microjob:done', { jobId: ctx.job.jobId, macroIndex: f.macroIndex, index: f.index, leaseTerm: f.leaseTerm, outputHash: f.outputHash })
  }
  if (!host.announceComplete) return
  for (const [macroIndex, items] of byMacro) {
    host.publish(macroTopic(ctx.job.key), { completed: { jobId: fromHex(ctx.job.jobId), macroIndex, items } })
  }
}

/** A queue turn asked of a room: the batch it locks for this peer, and when. */
interface Turn {
  room: MacroRoom
  locked: Promise<{ items: LockedItem[], lockedAt: number }>
}

/**
 * This peer owns the queue of another room with open items (it took it over, or was handed it, while it worked
 * here): the next turn is chosen afresh (the room choice puts that room first) instead of asked of this room ahead.
 */
function ownsOtherOpenRoom (ctx: JobContext, room: MacroRoom): boolean {
  for (const other of ctx.rooms.values()) {
    if (other !== room && other.isOwner && !other.isComplete && other.state != null && countStates(other.state.states).open > 0) return true
  }
  return false
}

/**
 * Asks the room for the next queue turn (a batch locked for this peer), whose leases are kept from their lock on;
 * a rejection is read by whoever awaits it.
 */
function askTurn (host: TurnHost, ctx: JobContext, room: MacroRoom, held: HeldLeases, signal: AbortSignal): Turn {
  const locked = room.next(host.want ?? ctx.turnSize.want(host.jobPeers?.(ctx) ?? 1), { signal }).then(items => {
    for (const i of items) held.hold(microKey(i.macroIndex, i.index), i.leaseTerm)
    return { items, lockedAt: host.clock() }
  })
  locked.catch(() => {})
  return { room, locked }
}

/**
 * The items of a turn, once the room answers. A member whose turn goes unanswered for `turnWaitMs` leaves the room
 * (which ends the wait with RoomClosedError) and says so: a stuck room costs this peer a choice, not the job. An owner
 * is never left (its turns are served at once, and it keeps the queue).
 */
async function awaitTurn (host: TurnHost, ctx: JobContext, turn: Turn): Promise<{ items: LockedItem[], lockedAt: number }> {
  const waitMs = host.turnWaitMs ?? DEFAULT_TURN_WAIT_MS
  const asked = host.clock()
  let timer: ReturnType<typeof setTimeout> | undefined
  const watch = (): void => {
    timer = setTimeout(() => {
      if (turn.room.isOwner) {
        watch()
        return
      }
      const waitedMs = host.clock() - asked
      log.error('%s turn in room %d unanswered for %d ms (owner %s): leaving the room', host.self.slice(-6), turn.room.macroIndex, waitedMs, turn.room.state?.owner.slice(-6))
      host.dispatch('turn:unanswered', { jobId: ctx.job.jobId, macroIndex: turn.room.macroIndex, waitedMs, owner: turn.room.state?.owner })
      host.leaveRoom(ctx, turn.room)
    }, waitMs)
  }
  watch()
  try {
    return await turn.locked
  } finally {
    clearTimeout(timer)
  }
}

/** Why {@link runTurns} returned: `'drained'` when nothing was open for this peer for a while (drained-jobs.ts). */
export type TurnsEnd = 'drained' | undefined

/**
 * Whether this peer leaves the job after `idleRounds` rounds without open items: at once when another job is open to
 * it ({@link DRAINED_IDLE_ROUNDS}), else after {@link MAX_IDLE_ROUNDS} (it looks at the jobs again).
 */
function drained (host: TurnHost, ctx: JobContext, idleRounds: number): boolean {
  return idleRounds > MAX_IDLE_ROUNDS || (idleRounds >= DRAINED_IDLE_ROUNDS && host.otherOpenJob?.(ctx) === true)
}

/**
 * The processor's work on one job (DESIGN 7): find a room, take a turn of MicroJobs, run them, write their results;
 * returns when the job is finished or given up here, or nothing was open for a while (`'drained'`: the caller looks
 * at other jobs).
 */
export async function runTurns (host: TurnHost, ctx: JobContext, signal: AbortSignal): Promise<TurnsEnd> {
  const held = heldLeases({ renew: (key, term) => ctx.microLeases.renew(key, term), clock: () => host.clock() }, { renewMs: host.renewMs })
  try {
    return await turnsOf(host, ctx, held, signal)
  } finally {
    // what this peer still holds and will not run (a turn asked ahead, a job left) runs out and is opened again
    held.stop()
  }
}

async function turnsOf (host: TurnHost, ctx: JobContext, held: HeldLeases, signal: AbortSignal): Promise<TurnsEnd> {
  let readyAt = host.clock()
  let idleRounds = 0
  // the next turn, asked for while the last MicroJobs of this one run (TurnSize.lead): no idle gap waiting for the
  // queue, and its lock writes the results finished so far with the next turn's leases (one CRDT update per turn;
  // the results of the MicroJobs after the ask go with the lock after that, or at the end)
  let ahead: Turn | undefined
  while (!signal.aborted && !ctx.finalized) {
    if (pastCutoff(ctx.job, host.deadlineClock())) {
      // too near the deadline: what is finished is written, nothing more is taken (deadline.ts)
      log('%s stops work on %s: its deadline is near', host.self.slice(-6), ctx.job.jobId)
      ctx.batch.flush()
      for (const r of ctx.rooms.values()) host.leaveRoom(ctx, r)
      return
    }
    let turn = ahead
    ahead = undefined
    if (turn == null) {
      const room = await host.findRoom(ctx, signal, idleRounds)
      if (room == null) {
        idleRounds++
        if (drained(host, ctx, idleRounds)) return 'drained'
        continue
      }
      // open items for this peer: now, not at the job choice, its join is worth its gas
      if (ctx.joined !== true && host.joinJob != null) {
        await host.joinJob(ctx, signal)
        ctx.joined = true
        continue // the job may have moved on during the join: its rooms are looked at again
      }
      turn = askTurn(host, ctx, room, held, signal)
    }
    const room = turn.room
    let items: LockedItem[]
    let lockedAt: number
    try {
      ({ items, lockedAt } = await awaitTurn(host, ctx, turn))
    } catch (err) {
      if (signal.aborted || (err as Error).name === 'RoomClosedError') continue
      throw err
    }
    log('%s turn in room %d: %d items', host.self.slice(-6), room.macroIndex, items.length)
    if (items.length === 0) {
      // nothing more here for now: what is finished is written at once, not after the flush window
      ctx.batch.flush()
      host.leaveRoom(ctx, room)
      idleRounds++
      if (drained(host, ctx, idleRounds)) return 'drained'
      await host.waitFor(ctx, signal, Math.min(50 * idleRounds, host.idleMs ?? DEFAULT_IDLE_MS))
      continue
    }
    idleRounds = 0
    let failed = false
    try {
      for (const [n, item] of items.entries()) {
        // stopped, or this peer left the job's round meanwhile (over on chain, a new round): the rest is not run
        if (signal.aborted || ctx.left) return
        if (ahead == null && items.length - n <= ctx.turnSize.lead(items.length) && !ctx.finalized && !ownsOtherOpenRoom(ctx, room)) {
          ahead = askTurn(host, ctx, room, held, signal)
        }
        const f = await runItem(host, ctx, room, item, readyAt, lockedAt, signal)
          .finally(() => { held.drop(microKey(item.macroIndex, item.index)) })
        if (f === 'failed') {
          // poison isolation: hand the rest of the batch back at once (the owner re-opens released leases) and
          // go back to the job choice, where this job now comes after every healthy one
          for (const rest of items.slice(n + 1)) release(ctx, held, rest)
          ahead?.locked.then(({ items: next }) => {
            for (const i of next) release(ctx, held, i)
          }, () => {})
          ahead = undefined
          failed = true
          break
        }
        readyAt = host.clock()
      }
    } finally {
      // the turn's results go into the job doc together: with the next turn's leases when this peer locks them,
      // at once when no next turn was asked for, or resultFlushMs after the oldest when the queue is slow to come
      if (!signal.aborted && ahead == null) ctx.batch.flush()
    }
    if (failed) return
    // a turn of quick MicroJobs runs in microtasks only: yield to the event loop between turns, so that the doc
    // store publishes this turn's update (not one update for a whole MacroJob, too big for gossip) and rooms,
    // timers and other peers' gossip are served
    await new Promise<void>(resolve => { setImmediate(resolve) })
  }
}

/** Hands a locked MicroJob this peer will not run back to the room's owner (its lease released). */
function release (ctx: JobContext, held: HeldLeases, item: LockedItem): void {
  const key = microKey(item.macroIndex, item.index)
  held.drop(key)
  ctx.microLeases.release(key, item.leaseTerm)
}

async function runItem (host: TurnHost, ctx: JobContext, room: MacroRoom, item: LockedItem, readyAt: number, lockedAt: number,
  signal: AbortSignal): Promise<'failed' | undefined> {
  const key = microKey(item.macroIndex, item.index)
  if (ctx.progress.has(key)) {
    room.done(item.index)
    return
  }
  // the CRDT lease decides: a rival queue (same MacroJob, concurrent epoch) may have taken the item meanwhile (not
  // a peer this room no longer believes: it writes over every lease of the items it held too long)
  if (!room.mayRun(item.index, item.leaseTerm)) {
    log('%s skips %s: lease term %d no longer held', host.self.slice(-6), key, item.leaseTerm)
    room.lost(item.index)
    return
  }
  const task = microJobTask(ctx, item.macroIndex, item.index)
  log('%s runs %s term %d (room owner %s epoch %d term %d)', host.self.slice(-6), key, item.leaseTerm, room.state?.owner.slice(-6), room.state?.epoch, room.state?.term)
  const started = host.clock()
  host.dispatch('microjob:start', {
    jobId: task.jobId, macroIndex: task.macroIndex, index: task.index, leaseTerm: item.leaseTerm,
    waitMs: started - readyAt, claimToStartMs: started - lockedAt
  })
  try {
    const { output, digest } = await host.executor.run(task, { signal, timeoutMs: jobRunLimit(host, ctx) })
    ctx.turnSize.record(host.clock() - started)
    const outputHash = new Uint8Array(createHash('sha256').update(output).digest())
    let outputCid = await host.storeOutput?.(output)
    if (outputCid != null && outputCid === rawOutputCid(toHex(outputHash))) {
      outputCid = undefined
    }
    // the result decides from now on (every reader treats "result present" as done): the lease goes in the same
    // update, which saves its signed record in the doc (DESIGN 11: < 300 bytes per MicroJob); the turn's results
    // share that update (result-batch.ts)
    ctx.batch.add({
      macroIndex: task.macroIndex, index: task.index, leaseTerm: item.leaseTerm, outputHash: outputHash as Uint8Array<ArrayBuffer>, size: output.length, outputCid,
      workTag: workTag(digest, host.self)
    })
  } catch (err) {
    if (signal.aborted) return
    log.error('MicroJob %s failed: %e', key, err)
    ctx.microLeases.release(key, item.leaseTerm)
    host.dispatch('microjob:error', { jobId: task.jobId, macroIndex: task.macroIndex, index: task.index, error: err as Error })
    host.itemFailed(ctx, item, err as Error)
    return 'failed'
  }
}


/** The executor's task for MicroJob `index` of MacroJob `macroIndex` of the job. */
function microJobTask (ctx: JobContext, macroIndex: number, index: number): MicroJobTask {
  const d = ctx.slicing.microJobs[macroIndex * ctx.job.spec.slicing.microJobsPerMacro + index]
  return { jobId: ctx.job.jobId, spec: ctx.job.spec, macroIndex: d.macroIndex, index: d.index, microId: d.microId, start: d.start, end: d.end }
}

/**
 * Runs one MicroJob outside the queue, under {@link CHECK_RUN_TIMEOUT_FACTOR} times the queue's limit, and keeps
 * nothing of it: a check that it fails here too (poison.ts, `jobFailedInCrdt`). @throws what the run throws
 */
export async function checkRun (host: Pick<TurnHost, 'executor' | 'runLimitMs'>, ctx: JobContext, macroIndex: number, index: number,
  signal: AbortSignal): Promise<void> {
  await host.executor.run(microJobTask(ctx, macroIndex, index), { signal, timeoutMs: jobRunLimit(host, ctx) * CHECK_RUN_TIMEOUT_FACTOR })
}
