import { describe, expect, it } from 'vitest'
import { encodeMessage } from '../../src/coord/codec.js'
import { LOCKED, OPEN, toWire } from '../../src/coord/queue.js'
import { countDrop, readCoordMessage, readRoomMessage } from '../../src/coord/room-inbox.js'
import { createMetrics } from '../../src/coord/metrics.js'
import { createTrafficCounters } from '../../src/protocol/index.js'
import type { QueueState } from '../../src/coord/queue.js'
import type { RoomInboxInit } from '../../src/coord/room-inbox.js'

const OWNER = '12D3KooWGRUVh2LpfNHc1hmuG2Xj5fXfXeL8tV2Q4Tq8yrR7Ks2v'
const OTHER = '12D3KooWEyoppNCUx8Yx66oV9fJnriXwCcXwDDUA2kj6vnc6iDEp'
const SELF = '12D3KooWJWoaqZhDaoEFshF7Rh1bpY9ohihFhzcW6d69Lr2NASuq'
const TOPIC = '/jobmesh/1/job/0xjob/macro/m0'

function init (overrides: Partial<RoomInboxInit> = {}): RoomInboxInit {
  return { topic: TOPIC, self: SELF, macroIndex: 0, size: 8, maxBytes: 64 * 1024, ...overrides }
}

function state (): QueueState {
  const states = new Uint8Array(8)
  states[0] = LOCKED
  return {
    macroIndex: 0, epoch: 1, term: 2, owner: OWNER, prevOwner: OTHER, version: 5, states,
    locks: new Map([[0, { holder: OTHER, leaseTerm: 1 }]]), pending: [OTHER]
  }
}

const signed = (data: Uint8Array, from = OWNER, topic = TOPIC): { type: 'signed', topic: string, data: Uint8Array, from: { toString: () => string } } =>
  ({ type: 'signed', topic, data, from: { toString: () => from } })

describe('readRoomMessage (the inbox role of a room)', () => {
  it('reads a snapshot into a queue state and counts it', () => {
    const counters = createTrafficCounters()
    const entry = readRoomMessage(signed(encodeMessage({ snapshot: toWire(state()) })), init({ counters }))
    expect(entry.kind).toBe('snapshot')
    if (entry.kind !== 'snapshot') return
    expect(entry.from).toBe(OWNER)
    expect(entry.state.owner).toBe(OWNER)
    expect(entry.state.term).toBe(2)
    expect([...entry.state.states]).toEqual([LOCKED, OPEN, OPEN, OPEN, OPEN, OPEN, OPEN, OPEN])
    expect(entry.state.locks.get(0)).toEqual({ holder: OTHER, leaseTerm: 1 })
    expect(counters.kinds.snapshot?.received).toBe(1)
    expect(counters.messageVerifications).toBe(1)
  })

  it('reads a request of this MacroJob', () => {
    const entry = readRoomMessage(signed(encodeMessage({ request: { macroIndex: 0, done: [3], want: 8 } }), OTHER), init())
    expect(entry).toEqual({ kind: 'request', from: OTHER, request: { macroIndex: 0, done: [3], want: 8 } })
  })

  it('ignores other topics and its own messages', () => {
    const data = encodeMessage({ request: { macroIndex: 0, done: [], want: 8 } })
    expect(readRoomMessage(signed(data, OWNER, '/elsewhere'), init())).toEqual({ kind: 'ignore' })
    expect(readRoomMessage(signed(data, SELF), init())).toEqual({ kind: 'ignore' })
  })

  it('drops unsigned messages as forged', () => {
    const data = encodeMessage({ request: { macroIndex: 0, done: [], want: 8 } })
    expect(readRoomMessage({ type: 'unsigned', topic: TOPIC, data }, init())).toEqual({ kind: 'drop', reason: 'forged' })
  })

  it('drops oversized, undecodable and inconsistent messages, naming the sender', () => {
    const big = encodeMessage({ request: { macroIndex: 0, done: Array.from({ length: 100 }, (_, i) => i), want: 8 } })
    expect(readRoomMessage(signed(big, OTHER), init({ maxBytes: 32 }))).toEqual({ kind: 'drop', from: OTHER, reason: 'oversized' })
    expect(readRoomMessage(signed(new Uint8Array([0xff, 0xff, 0xff]), OTHER), init())).toEqual({ kind: 'drop', from: OTHER, reason: 'malformed' })
    // a request or snapshot of another MacroJob, a state vector of the wrong length, a message with neither
    expect(readRoomMessage(signed(encodeMessage({ request: { macroIndex: 1, done: [], want: 8 } }), OTHER), init()).kind).toBe('drop')
    expect(readRoomMessage(signed(encodeMessage({ snapshot: toWire(state()) })), init({ size: 16 }))).toEqual({ kind: 'drop', from: OWNER, reason: 'malformed' })
    expect(readRoomMessage(signed(encodeMessage({ openMacro: { nonce: 1n } }), OTHER), init())).toEqual({ kind: 'drop', from: OTHER, reason: 'malformed' })
  })
})

describe('readCoordMessage (any coordination topic: /jobs, /macro, rooms)', () => {
  it('decodes another peer\'s message of any kind and counts it; ignores its own; drops and counts the rest by reason', () => {
    const counters = createTrafficCounters()
    const open = encodeMessage({ openMacro: { nonce: 7n } })
    const read = readCoordMessage(signed(open, OTHER, '/jobmesh/1/job/0xjob/macro'), { self: SELF, maxBytes: 1024, counters })
    expect(read.kind === 'message' && read.from === OTHER && read.message.openMacro?.nonce === 7n).toBe(true)
    expect(counters.kinds.openMacro?.received).toBe(1)
    expect(readCoordMessage(signed(open, SELF), { self: SELF, maxBytes: 1024 })).toEqual({ kind: 'ignore' })
    const metrics = createMetrics()
    for (const msg of [
      { type: 'unsigned' as const, topic: TOPIC, data: open },
      signed(open, OTHER),
      signed(new Uint8Array([0xff, 0xff, 0xff]), OTHER)
    ]) {
      const entry = readCoordMessage(msg, { self: SELF, maxBytes: 3 })
      if (entry.kind === 'drop') countDrop(metrics, entry.reason)
    }
    expect([metrics.droppedForged, metrics.droppedOversized, metrics.droppedMalformed]).toEqual([1, 1, 1])
  })
})
