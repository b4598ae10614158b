import { describe, expect, it } from 'vitest'
import { LeaseLostError } from '../../src/coord/errors.js'
import { checkFinishedLast, findRoom, finishedHere, followSummaries, noteOwnResult, onMacroMessage } from '../../src/processor/rooms.js'
import { DEFAULT_COMPLETION_WINDOW_MS } from '../../src/processor/constants.js'
import type { MacroRoom } from '../../src/coord/room.js'
import type { JobContext } from '../../src/processor/job-context.js'
import type { RoomsHost } from '../../src/processor/rooms.js'

/**
 * findRoom over fakes: two MacroJobs of 8 MicroJobs, nothing done, no lease held; the room of MacroJob `m`, once
 * joined, is a fake that records whether it was closed. The claim of a MacroJob in `lose` fails as a concurrent
 * claimant's win does (LeaseLostError).
 */
function harness (lose: Set<number>) {
  const closed: number[] = []
  const claimed: number[] = []
  // MacroJobs whose lease another peer won
  const held = new Set<number>()
  const fakeRoom = (m: number): MacroRoom => ({
    macroIndex: m,
    state: undefined,
    isOwner: false,
    isComplete: false,
    async claim () { return ctx.macroLeases.claim(String(m)) },
    close () { closed.push(m) }
  }) as unknown as MacroRoom
  const ctx = {
    job: { jobId: '0xjob', key: '0xjob' },
    slicing: { macroJobs: [0, 1].map(m => ({ macroId: `macro${m}`, size: 8, microId: (i: number) => `m${m}.${i}` })) },
    progress: { doneIn: () => 0, has: () => false, summarized: () => false, hinted: () => false },
    macroDocs: { get: () => undefined },
    openMacro: async () => {},
    macroLeases: {
      get: () => undefined,
      isOpen: (key: string) => !held.has(Number(key)),
      async claim (key: string) {
        const m = Number(key)
        claimed.push(m)
        if (lose.has(m)) {
          held.add(m)
          throw new LeaseLostError(`lease of MacroJob ${m} went to another peer`)
        }
        return { owner: 'peer-a', term: 1 }
      }
    },
    rooms: new Map<number, MacroRoom>(),
    announced: new Map(),
    lostClaims: new Set<number>(),
    discoveredAt: 0
  } as unknown as JobContext
  const host = {
    self: 'peer-a',
    owners: new Map(),
    maxBytes: 65_536,
    pubsub: { getSubscribers: () => [] },
    clock: () => 1_000,
    publish: () => {},
    dispatch: () => {}
  } as unknown as RoomsHost
  // the claims join the room first (a real claimant subscribes before it writes the lease): joinRoom finds these
  for (const m of [0, 1]) ctx.rooms.set(m, fakeRoom(m))
  return { ctx, host, closed, claimed, held }
}

describe('findRoom (the processor\'s room choice, applied)', () => {
  it('a peer that lost a claim leaves that room when its next choice goes elsewhere', async () => {
    const h = harness(new Set([0, 1]))
    const signal = new AbortController().signal
    // first choice: a claim; which MacroJob depends on this peer's hash order
    expect(await findRoom(h.host, h.ctx, signal)).toBeUndefined()
    const first = h.claimed[0]
    expect(h.ctx.lostClaims).toEqual(new Set([first]))
    expect(h.closed).toEqual([])
    // the next choice claims the other MacroJob: the lost room is left (closed, no longer among the job's rooms)
    expect(await findRoom(h.host, h.ctx, signal)).toBeUndefined()
    const second = h.claimed[1]
    expect(second).not.toBe(first)
    expect(h.closed).toEqual([first])
    expect(h.ctx.rooms.has(first)).toBe(false)
    expect(h.ctx.lostClaims).toEqual(new Set([second]))
  })

  it('a peer that lost a claim stays in that room when its next choice joins it', async () => {
    const h = harness(new Set([0, 1]))
    const signal = new AbortController().signal
    expect(await findRoom(h.host, h.ctx, signal)).toBeUndefined()
    const lost = h.claimed[0]
    // the winner's snapshot arrives: the room this peer is in shows open items, and the other MacroJob is held
    const room = h.ctx.rooms.get(lost) as unknown as { state: unknown }
    room.state = { states: new Uint8Array(8), owner: 'peer-b', epoch: 1, term: 1 }
    h.held.add(1 - lost)
    const joined = await findRoom(h.host, h.ctx, signal)
    expect(joined?.macroIndex).toBe(lost)
    expect(h.closed).toEqual([])
    expect(h.ctx.lostClaims.size).toBe(0)
  })

  it('a job this peer left meanwhile (over on chain, a new round) is not claimed, and no doc of it is opened again', async () => {
    const h = harness(new Set())
    const opened: number[] = []
    // the job is left while its MacroJob doc opens (the processor's retire: leaveJob sets `left`)
    h.ctx.openMacro = async (m: number) => { opened.push(m); h.ctx.left = true }
    const signal = new AbortController().signal
    expect(await findRoom(h.host, h.ctx, signal)).toBeUndefined()
    expect(opened).toHaveLength(1)
    expect(h.claimed).toEqual([])
    // once left, nothing is chosen at all
    expect(await findRoom(h.host, h.ctx, signal)).toBeUndefined()
    expect(opened).toHaveLength(1)
    expect(h.claimed).toEqual([])
  })

  it('an idle peer does not ask for room announcements within its interval of another peer asking (the answers reach it too)', async () => {
    const h = harness(new Set())
    // nothing to join or claim: every MacroJob lease is held, no room announced, none joined
    h.held.add(0)
    h.held.add(1)
    h.ctx.rooms.clear()
    let now = 10_000
    const asked: number[] = []
    const host = { ...h.host, clock: () => now, publish: (_topic: string, msg: { openMacro?: unknown }) => { if (msg.openMacro != null) asked.push(now) } } as unknown as RoomsHost
    const signal = new AbortController().signal
    expect(await findRoom(host, h.ctx, signal)).toBeUndefined()
    expect(asked).toEqual([10_000])
    // another peer asks 1 s later; this peer's next look at its interval (150 ms at idle round 0) finds that ask
    now = 11_000
    onMacroMessage(host, h.ctx, { openMacro: { nonce: 1n } } as unknown as Parameters<typeof onMacroMessage>[2], 'peer-b')
    now = 11_100
    expect(await findRoom(host, h.ctx, signal)).toBeUndefined()
    expect(asked).toEqual([10_000])
    // once the interval has passed since the last ask, whoever made it, this peer asks again
    now = 11_150
    expect(await findRoom(host, h.ctx, signal)).toBeUndefined()
    expect(asked).toEqual([10_000, 11_150])
  })
})

describe('room announcements (onMacroMessage)', () => {
  it('an announcement of a MacroJob the job does not have is dropped: the next room choice goes on, to a real one', async () => {
    const h = harness(new Set())
    h.held.add(0)
    h.held.add(1)
    h.ctx.rooms.clear()
    const announce = (macroIndex: number): void => {
      onMacroMessage(h.host, h.ctx, { room: { macroIndex, open: 50 } } as unknown as Parameters<typeof onMacroMessage>[2], 'peer-x')
    }
    for (const m of [9999, 2, -1, 0.5]) announce(m)
    expect([...h.ctx.announced.keys()]).toEqual([])
    const signal = new AbortController().signal
    expect(await findRoom(h.host, h.ctx, signal)).toBeUndefined()
    announce(1)
    expect([...h.ctx.announced.keys()]).toEqual([1])
  })
})

describe('who finalizes when the results of other MacroJobs arrive from their docs (noteOwnResult, checkFinishedLast)', () => {
  const ctxWith = (done: Set<string>, summarized: Set<number>): JobContext => ({
    slicing: { macroJobs: [0, 1, 2].map(m => ({ macroId: `macro${m}`, size: 2 })) },
    progress: {
      doneIn: (m: number) => [...done].filter(k => k.startsWith(`${m}.`)).length,
      has: (k: string) => done.has(k),
      summarized: (m: number) => summarized.has(m)
    }
  }) as unknown as JobContext

  it('a result of its own that finishes the last unfinished MacroJob makes this peer a finalizer', () => {
    const ctx = ctxWith(new Set(['0.0', '0.1', '2.0', '2.1']), new Set([1]))
    noteOwnResult(ctx, '2.1', 1_000)
    expect(ctx.finishedLast).toBe(true)
  })

  it('so does a summary of the last other MacroJob that crossed its own finish, within the completion window, not later', () => {
    const summarized = new Set<number>()
    const ctx = ctxWith(new Set(['0.0', '0.1', '2.0', '2.1']), summarized)
    noteOwnResult(ctx, '2.1', 1_000)
    expect(ctx.finishedLast).toBeUndefined()
    summarized.add(1)
    checkFinishedLast(ctx, 1_000 + DEFAULT_COMPLETION_WINDOW_MS)
    expect(ctx.finishedLast).toBe(true)
    const late = ctxWith(new Set(['0.0', '0.1', '2.0', '2.1']), new Set())
    noteOwnResult(late, '2.1', 1_000)
    ;(late.progress as unknown as { summarized: (m: number) => boolean }).summarized = () => true
    checkFinishedLast(late, 1_001 + DEFAULT_COMPLETION_WINDOW_MS)
    expect(late.finishedLast).toBeUndefined()
  })

  it('not while its own MacroJob is not finished', () => {
    const unfinished = ctxWith(new Set(['0.0', '0.1', '2.0']), new Set([1]))
    noteOwnResult(unfinished, '2.0', 1_000)
    expect(unfinished.finishedLast).toBeUndefined()
  })
})

describe('summarized MacroJobs (followSummaries, finishedHere)', () => {
  /** MacroJobs 0-2 of 2 MicroJobs; `claimed`: those with a lease in the job doc. */
  const ctxOf = (done: Set<string>, summarized: (m: number) => boolean, hinted: (m: number) => boolean, calls: string[], claimed = new Set([0, 1, 2])): JobContext => ({
    job: { jobId: '0xjob' },
    slicing: { macroJobs: [0, 1, 2].map(m => ({ macroId: `macro${m}`, size: 2 })) },
    progress: {
      doneIn: (m: number) => [...done].filter(k => k.startsWith(`${m}.`)).length,
      has: (k: string) => done.has(k),
      summarized,
      hinted
    },
    macroLeases: { get: (key: string) => claimed.has(Number(key)) ? { owner: 'someone' } : undefined },
    unbelieved: new Set<number>(),
    readMacro: async (m: number) => { calls.push(`read ${m}`) },
    resyncMacro: async (m: number) => { calls.push(`resync ${m}`) }
  }) as unknown as JobContext

  it('one this peer did not work on is not read; one open here short of its results is exchanged again', () => {
    const calls: string[] = []
    // 1: summarized, its doc not held here; 2: summarized, its doc held, one result short
    const ctx = ctxOf(new Set(['0.0', '0.1', '2.0']), m => m > 0, m => m === 1, calls)
    followSummaries(ctx)
    expect(calls).toEqual(['resync 2'])
  })

  it('one nobody claimed is read at once, once, and its summary does not count, even once it is claimed', () => {
    const calls: string[] = []
    const claimed = new Set([0, 2])
    const ctx = ctxOf(new Set(['0.0', '0.1', '2.0', '2.1']), m => m === 1, m => m === 1, calls, claimed)
    followSummaries(ctx)
    followSummaries(ctx)
    expect(calls).toEqual(['read 1'])
    expect(finishedHere(ctx)).toBe(false)
    claimed.add(1)
    expect(finishedHere(ctx)).toBe(false)
  })

  it('the job is finished here when each MacroJob has all its results here or a summary of a claimed MacroJob and no doc here', () => {
    const calls: string[] = []
    const done = new Set(['0.0', '0.1', '2.0'])
    const ctx = ctxOf(done, m => m > 0, m => m === 1, calls)
    // 2's doc is held here: its summary does not count, its results do
    expect(finishedHere(ctx)).toBe(false)
    done.add('2.1')
    expect(finishedHere(ctx)).toBe(true)
    // without 1's summary, 1 is open
    expect(finishedHere(ctxOf(done, m => m === 2, () => false, calls))).toBe(false)
    expect(calls).toEqual([])
  })
})
