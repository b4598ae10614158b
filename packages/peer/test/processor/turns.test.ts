import { afterEach, describe, expect, it, vi } from 'vitest'
import { ResultBatch } from '../../src/processor/result-batch.js'
import { TurnSize } from '../../src/processor/turn-size.js'
import { runTurns } from '../../src/processor/turns.js'
import type { LockedItem, MacroRoom } from '../../src/coord/room.js'
import type { MicroJobExecutor } from '../../src/executor/index.js'
import type { JobContext } from '../../src/processor/job-context.js'
import type { TurnHost } from '../../src/processor/turns.js'

const item = (index: number): LockedItem => ({ macroIndex: 0, index, leaseTerm: 1 })

/**
 * The turn loop over fakes: a room whose turns the test hands out, an executor whose MicroJobs the test ends, a
 * result batch over a recording transaction. Records the order of events.
 */
function harness () {
  const events: string[] = []
  const turns: Array<PromiseWithResolvers<LockedItem[]>> = []
  const running = new Map<number, PromiseWithResolvers<void>>()
  const released: number[] = []
  const transactions: string[][] = []
  let current: string[] | undefined
  const room = {
    macroIndex: 0,
    isOwner: false,
    state: undefined,
    async next () {
      const turn = Promise.withResolvers<LockedItem[]>()
      events.push('next')
      turns.push(turn)
      return await turn.promise
    },
    done () {},
    lost () {},
    mayRun: () => true
  } as unknown as MacroRoom
  const executor: MicroJobExecutor = {
    async run (task) {
      const run = Promise.withResolvers<void>()
      running.set(task.index, run)
      events.push(`start ${task.index}`)
      await run.promise
      running.delete(task.index)
      events.push(`end ${task.index}`)
      if (task.index === 99) throw new Error('trap')
      return { output: new Uint8Array([task.index]), digest: '0x' + task.index.toString(16).padStart(64, '0') }
    }
  }
  const ctx = {
    finalized: false,
    job: { jobId: '0xjob', key: '0xjob', spec: { slicing: { microJobsPerMacro: 100 }, estimate: { secondsPerMicroJob: 1 } } },
    slicing: { microJobs: Array.from({ length: 100 }, (_, i) => ({ macroIndex: 0, index: i, microId: `m${i}`, start: i, end: i + 1 })) },
    progress: { has: () => false },
    microLeases: { holds: () => true, renew: () => {}, release: (key: string) => { released.push(Number(key.split('.')[1])) } },
    rooms: new Map<number, unknown>()
  } as unknown as JobContext
  ctx.turnSize = new TurnSize()
  ctx.batch = new ResultBatch({
    transact: (_m, fn) => { current = []; fn(); transactions.push(current); current = undefined },
    results: { writeTurn: (_m, items) => { for (const r of items) current?.push(`result ${r.index}`) } },
    microLeases: { drop: () => {} }
  }, { flushMs: 60_000, onWritten: () => {} })
  let rooms = 0
  let left = 0
  const failed: number[] = []
  const host: TurnHost = {
    self: 'peer-a',
    executor,
    renewMs: 60_000,
    announceComplete: false,
    clock: () => 0,
    deadlineClock: () => Date.now(),
    findRoom: async () => rooms++ === 0 ? room : undefined,
    // leaving closes the room, which ends a turn still waited on (as MacroRoom.close does)
    leaveRoom: () => {
      left++
      const closed = new Error('room closed')
      closed.name = 'RoomClosedError'
      turns.at(-1)?.reject(closed)
    },
    waitFor: async () => {},
    itemFailed: (_ctx, i) => { failed.push(i.index) },
    publish: () => {},
    dispatch: () => {}
  }
  /** Lets the loop run until it waits on the test again. */
  const settle = async (): Promise<void> => { for (let i = 0; i < 10; i++) await new Promise(resolve => setImmediate(resolve)) }
  /** What a room's lock does with `lockWith`: this peer's unwritten results go with the new leases. */
  const lock = (indices: number[]): void => { ctx.batch.flush({ macroIndex: 0, fn: () => { current?.push(`leases ${indices.join(',')}`) } }) }
  return { events, turns, running, released, transactions, ctx, host, settle, lock, failed, left: () => left, room }
}

describe('runTurns (the processor\'s turn loop)', () => {
  afterEach(() => { vi.useRealTimers() })

  it('takes no turn of a job near its deadline, and stops taking turns when the deadline comes near during the work', async () => {
    const near = harness()
    const spec = near.ctx.job.spec as { deadline: number }
    // four minutes before the deadline: work goes on (the margin is three)
    spec.deadline = Date.now() + 240_000
    const h = harness()
    ;(h.ctx.job.spec as { deadline: number }).deadline = Date.now() + 240_000
    const done = runTurns(h.host, h.ctx, new AbortController().signal)
    await h.settle()
    expect(h.events).toEqual(['next'])
    h.turns[0].resolve([item(0)])
    await h.settle()
    // the next turn was asked for before MicroJob 0 (the last) started; the deadline comes near while it runs: its result
    // is written, and the loop ends without waiting for that turn or asking another
    expect(h.events).toEqual(['next', 'next', 'start 0'])
    ;(h.ctx.job.spec as { deadline: number }).deadline = Date.now() + 60_000
    h.running.get(0)?.resolve()
    await done
    expect(h.events).toEqual(['next', 'next', 'start 0', 'end 0'])
    expect(h.transactions).toEqual([['result 0']])
    // four minutes away by this machine's clock, but the chain's runs two minutes ahead: within the margin, not one
    // turn (the escrow reads the deadline against block time)
    spec.deadline = Date.now() + 240_000
    await runTurns({ ...near.host, deadlineClock: () => Date.now() + 120_000 }, near.ctx, new AbortController().signal)
    expect(near.events).toEqual([])
    // a job already within the margin: not one turn
    spec.deadline = Date.now() + 60_000
    await runTurns(near.host, near.ctx, new AbortController().signal)
    expect(near.events).toEqual([])
  })

  it('awaits its join of the job before its first turn, once; a join that fails takes no turn', async () => {
    const h = harness()
    const join = Promise.withResolvers<void>()
    let joins = 0
    h.host.joinJob = async () => { joins++; await join.promise }
    h.host.findRoom = async () => h.room
    const controller = new AbortController()
    const done = runTurns(h.host, h.ctx, controller.signal)
    await h.settle()
    expect(h.events).toEqual([])
    join.resolve()
    await h.settle()
    expect(h.events).toEqual(['next'])
    h.turns[0].resolve([item(0)])
    await h.settle()
    h.running.get(0)?.resolve()
    await h.settle()
    expect(h.events.filter(e => e === 'next').length).toBeGreaterThan(1)
    expect(joins).toBe(1)
    controller.abort()
    h.turns.at(-1)?.resolve([])
    await done

    const refused = harness()
    refused.host.joinJob = async () => { throw Object.assign(new Error('not mined'), { name: 'JoinNotMinedError' }) }
    await expect(runTurns(refused.host, refused.ctx, new AbortController().signal)).rejects.toThrow('not mined')
    expect(refused.events).toEqual([])
    expect(refused.ctx.joined).toBeUndefined()
  })

  it('asks for the next turn while the last MicroJob of this one runs, and writes this turn\'s results with the next lock', async () => {
    const h = harness()
    const done = runTurns(h.host, h.ctx, new AbortController().signal)
    await h.settle()
    expect(h.events).toEqual(['next'])
    h.turns[0].resolve([item(0), item(1)])
    await h.settle()
    h.running.get(0)?.resolve()
    await h.settle()
    // the next turn is asked for as the second (last) MicroJob starts, not after it ends
    expect(h.events).toEqual(['next', 'start 0', 'end 0', 'next', 'start 1'])
    h.running.get(1)?.resolve()
    await h.settle()
    // the turn ended with a next turn asked for: its results wait for that lock (no update of their own)
    expect(h.transactions).toEqual([])
    expect(h.ctx.batch.size).toBe(2)
    // the room locks the next batch: results and leases in one transaction
    h.lock([2])
    h.turns[1].resolve([item(2)])
    await h.settle()
    expect(h.transactions).toEqual([['result 0', 'result 1', 'leases 2']])
    h.running.get(2)?.resolve()
    await h.settle()
    // nothing open any more: what is finished is written at once, and the peer leaves the room (once, after the write)
    expect(h.left()).toBe(0)
    h.turns[2].resolve([])
    await h.settle()
    expect(h.transactions).toEqual([['result 0', 'result 1', 'leases 2'], ['result 2']])
    expect(h.left()).toBe(1)
    await done
  })

  it('a failed MicroJob hands back the rest of its batch and the batch asked for ahead', async () => {
    const h = harness()
    const done = runTurns(h.host, h.ctx, new AbortController().signal)
    await h.settle()
    h.turns[0].resolve([item(5), item(99)])
    await h.settle()
    h.running.get(5)?.resolve()
    await h.settle()
    // 99 (the last) is running and the next turn was asked for; it traps
    expect(h.events.slice(-2)).toEqual(['next', 'start 99'])
    h.running.get(99)?.reject(new Error('trap'))
    await h.settle()
    expect(h.failed).toEqual([99])
    // the turn asked ahead comes back with two MicroJobs: both go back at once, none runs
    h.turns[1].resolve([item(7), item(8)])
    await done
    await h.settle()
    expect(h.released).toEqual([99, 7, 8])
    expect(h.events.filter(e => e.startsWith('start'))).toEqual(['start 5', 'start 99'])
  })

  it('does not ask ahead while it owns another room with open items: the next turn is chosen afresh', async () => {
    const h = harness()
    // this peer took over the queue of MacroJob 1 (a failover) while it works in MacroJob 0
    h.ctx.rooms.set(1, { isOwner: true, isComplete: false, state: { states: new Uint8Array([0, 0, 2]) } } as unknown as MacroRoom)
    const done = runTurns(h.host, h.ctx, new AbortController().signal)
    await h.settle()
    h.turns[0].resolve([item(0), item(1)])
    await h.settle()
    h.running.get(0)?.resolve()
    await h.settle()
    h.running.get(1)?.resolve()
    await h.settle()
    // one ask only (the first turn), and the turn's results written at its end
    expect(h.events).toEqual(['next', 'start 0', 'end 0', 'start 1', 'end 1'])
    expect(h.transactions).toEqual([['result 0', 'result 1']])
    await done
  })

  it('a member leaves a room whose queue does not answer a turn, says so, and chooses again', async () => {
    const h = harness()
    const unanswered: unknown[] = []
    const host: TurnHost = {
      ...h.host,
      turnWaitMs: 20,
      dispatch: (type, detail) => { if (type === 'turn:unanswered') unanswered.push(detail) }
    }
    // the room never answers: the loop leaves it, finds nothing else open, and returns
    await runTurns(host, h.ctx, new AbortController().signal)
    expect(h.events).toEqual(['next'])
    expect(h.left()).toBe(1)
    expect(unanswered).toEqual([expect.objectContaining({ jobId: '0xjob', macroIndex: 0 })])
  })

  it('the queue owner keeps its room however long its turn takes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const h = harness();
    (h.room as { isOwner: boolean }).isOwner = true
    const unanswered: unknown[] = []
    const host: TurnHost = {
      ...h.host,
      turnWaitMs: 20,
      dispatch: (type, detail) => { if (type === 'turn:unanswered') unanswered.push(detail) }
    }
    const done = runTurns(host, h.ctx, new AbortController().signal)
    await h.settle()
    vi.advanceTimersByTime(100)
    await h.settle()
    expect(h.left()).toBe(0)
    expect(unanswered).toEqual([])
    h.turns[0].resolve([])
    await done
    expect(h.left()).toBe(1)
  })
})
