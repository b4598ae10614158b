#!/usr/bin/env node
// CRDT catch-up bench (DESIGN 11: a new peer catches up on a 100 000-MicroJob job in < 2 s; < 300 bytes of doc
// per MicroJob). Builds a job doc shaped like the coordination layer's (--shape, below) by 8 peers (8 Yjs clients).
// Then a fresh peer connects over
// loopback TCP and opens the doc: the time until `open` resolves is the catch-up over the real
// `/jobmesh/sync/1.0.0` protocol.
//
//   npm run build && node bench/crdt-sync.bench.js [--shape=turn|delete|keep|release] [sizes...]  (default 10000 100000)
//
// --shape models other layouts for comparison: `turn` = the current one: a queue turn of 16 MicroJobs locked in one
// transaction, then one signed TurnResults record for the turn written with the deletion of its 16 leases
// (docs/coordination.md, One signed record per queue turn); `delete` = one result record per MicroJob (the layout
// before turn records); `keep` = the lease stays after the result (expires unread), `release` = the lease is
// rewritten with expiresAt 0 after the result (a second signed record).
//
// Writes bench/out/crdt-sync.json.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function () {
    let resolve, reject
    const promise = new Promise((res, rej) => { resolve = res; reject = rej })
    return { promise, resolve, reject }
  }
}

import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { randomBytes } from 'node:crypto'
import * as Y from 'yjs'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { createNode } from '../packages/peer/dist/node/index.js'
import { createDocStore, jobDocName } from '../packages/peer/dist/crdt/index.js'
import { encodeSignedRecord, recordSigningMessage } from '../packages/peer/dist/protocol/index.js'
import { TurnResults } from '../packages/peer/dist/coord/pb/coord.js'

const here = dirname(fileURLToPath(import.meta.url))
const SHAPE = process.argv.find(a => a.startsWith('--shape='))?.slice('--shape='.length) ?? 'turn'
if (!['turn', 'delete', 'keep', 'release'].includes(SHAPE)) throw new Error(`unknown --shape=${SHAPE}`)
const TURN = 16
const sizes = process.argv.slice(2).map(Number).filter(n => n > 0)
const SIZES = sizes.length > 0 ? sizes : [10_000, 100_000]
const WRITERS = 8
const MICRO_PER_MACRO = 100

// minimal protobuf: field 1 uint32, field 2 uint64 / bytes, field 3 uint32 (the coordination layer's records)
function varint (n) {
  const out = []
  while (n >= 0x80) { out.push((n % 128) | 0x80); n = Math.floor(n / 128) }
  out.push(n)
  return out
}
const leaseRecord = (term, expiresAt) => Uint8Array.from([0x08, ...varint(term), ...(expiresAt > 0 ? [0x10, ...varint(expiresAt)] : [])])
const resultRecord = (term, hash, size) => Uint8Array.from([0x08, ...varint(term), 0x12, hash.length, ...hash, 0x18, ...varint(size)])

function envelope (key, domain, payload) {
  const signature = key.sign(recordSigningMessage(domain, payload))
  return new Uint8Array(encodeSignedRecord({ payload, signer: key.id, signature }))
}

async function buildJobUpdate (n, jobId) {
  const writers = await Promise.all(Array.from({ length: WRITERS }, async () => {
    const priv = await generateKeyPair('Ed25519')
    const id = peerIdFromPrivateKey(priv).toString()
    return { sign: (m) => priv.sign(m), id, slot: id.slice(-8), doc: new Y.Doc() }
  }))
  const now = Date.now()
  if (SHAPE === 'turn') {
    writeTurns(writers, n, jobId, now)
    return Y.mergeUpdates(writers.map(w => Y.encodeStateAsUpdate(w.doc)))
  }
  for (let k = 0; k < n; k++) {
    const w = writers[k % WRITERS]
    const micro = w.doc.getMap('micro')
    const results = w.doc.getMap('results')
    const key = `${Math.floor(k / MICRO_PER_MACRO)}.${k % MICRO_PER_MACRO}`
    const rkey = `${key}/${w.slot}`
    // each write is its own transaction, as on a real peer
    w.doc.transact(() => { micro.set(key, envelope(w, `jobmesh/micro/${jobId}/${key}`, leaseRecord(1, now + 15_000))) })
    w.doc.transact(() => {
      results.set(rkey, envelope(w, `jobmesh/result/${jobId}/${rkey}`, resultRecord(1, randomBytes(32), 4096 + k % 1000)))
      if (SHAPE === 'delete') micro.delete(key)
    })
    if (SHAPE === 'release') {
      w.doc.transact(() => { micro.set(key, envelope(w, `jobmesh/micro/${jobId}/${key}`, leaseRecord(1, 0))) })
    }
  }
  return Y.mergeUpdates(writers.map(w => Y.encodeStateAsUpdate(w.doc)))
}

/** Turns of TURN MicroJobs of one MacroJob, round robin over the writers: leases in one transaction, then the turn record with their deletion. */
function writeTurns (writers, n, jobId, now) {
  for (let first = 0, t = 0; first < n; first += TURN, t++) {
    const w = writers[t % WRITERS]
    const micro = w.doc.getMap('micro')
    const m = Math.floor(first / MICRO_PER_MACRO)
    const keys = []
    for (let k = first; k < Math.min(n, first + TURN) && Math.floor(k / MICRO_PER_MACRO) === m; k++) keys.push(k)
    first = keys.at(-1) + 1 - TURN
    const name = `${m}@${keys[0] % MICRO_PER_MACRO}.1`
    w.doc.transact(() => {
      for (const k of keys) micro.set(`${m}.${k % MICRO_PER_MACRO}`, envelope(w, `jobmesh/micro/${jobId}/${m}.${k % MICRO_PER_MACRO}`, leaseRecord(1, now + 15_000)))
    })
    const payload = TurnResults.encode({ items: keys.map(k => ({ index: k % MICRO_PER_MACRO, term: 1, outputHash: randomBytes(32), size: 4096 + k % 1000, workTag: randomBytes(16) })) })
    w.doc.transact(() => {
      w.doc.getMap('results').set(`${name}/${w.slot}`, envelope(w, `jobmesh/result/${jobId}/${name}`, payload))
      for (const k of keys) micro.delete(`${m}.${k % MICRO_PER_MACRO}`)
    })
  }
}

async function run (n) {
  const jobId = '0x' + randomBytes(32).toString('hex')
  const name = jobDocName(jobId)
  let t = performance.now()
  const update = await buildJobUpdate(n, jobId)
  const buildMs = performance.now() - t

  const a = await createNode({})
  const docsA = createDocStore(a, { compactIntervalMs: 0 })
  const docA = await docsA.open(name)
  Y.applyUpdate(docA, update)
  await docsA.flush()
  const state = Y.encodeStateAsUpdate(docA)

  const b = await createNode({})
  const docsB = createDocStore(b, { compactIntervalMs: 0 })
  try {
    await b.libp2p.dial(a.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    t = performance.now()
    const docB = await docsB.open(name, { signal: AbortSignal.timeout(60_000) })
    const catchUpMs = performance.now() - t
    const got = docB.getMap('micro').size
    const gotResults = docB.getMap('results').size
    const records = SHAPE === 'turn' ? docA.getMap('results').size : n
    if (got !== (SHAPE === 'delete' || SHAPE === 'turn' ? 0 : n) || gotResults !== records) throw new Error(`caught up ${got}/${gotResults} of ${n}`)
    return {
      shape: SHAPE,
      microJobs: n,
      docBytes: state.length,
      bytesPerMicroJob: +(state.length / n).toFixed(1),
      catchUpMs: +catchUpMs.toFixed(0),
      diffBytesReceived: docsB.metrics.syncBytesIn,
      buildMs: +buildMs.toFixed(0)
    }
  } finally {
    await docsB.stop()
    await docsA.stop()
    await b.stop()
    await a.stop()
  }
}

const results = []
for (const n of SIZES) {
  const r = await run(n)
  results.push(r)
  process.stdout.write(`crdt-sync ${SHAPE.padEnd(7)} ${String(n).padStart(7)} MicroJobs  catch-up ${String(r.catchUpMs).padStart(6)} ms  ` +
    `${r.bytesPerMicroJob} B/MicroJob  doc ${(r.docBytes / 1e6).toFixed(2)} MB   (targets: < 2000 ms at 100000, < 300 B)\n`)
}
const out = join(here, 'out')
mkdirSync(out, { recursive: true })
writeFileSync(join(out, 'crdt-sync.json'), JSON.stringify({
  bench: 'crdt-sync',
  node: process.version,
  targets: { catchUpMsAt100k: 2000, bytesPerMicroJob: 300 },
  results
}, null, 2) + '\n')
