#!/usr/bin/env node
// A jobmesh peer that copies other peers' results, for the end-to-end test of result hijacking (test code only: the
// shipped CLI and createPeer have no such mode). It is `jobmesh start` (same options, the same peer) that also follows
// every announced round's job doc and, whenever another peer's result for a MicroJob appears, writes the same output
// (hash, size, CID) as its own signed result, in its own slot, under the highest lease term (2^32 - 1). Run with
// --no-process it does no work of its own. Usage (the devnet runs it through its `entry` peer option):
//   node hijacking-peer.mjs start <jobmesh start options>
// It prints `hijacked <jobId> <macroIndex>.<index> from <signer>` for each MicroJob it copied. Its records are valid
// (signed by its own key, in its own slot): what stops the theft is that they carry no work tag of a run of its own
// (docs/settlement.md, Work tags).
import '../../../packages/peer/dist/cli/polyfill.js'
/* eslint-disable @typescript-eslint/explicit-function-return-type -- plain JS has no return type annotations */
import { Command } from 'commander'
import { INDEX_JOBS_MAP, RESULTS_MAP, readResults, recordSigner, recordVerifier, resultScope, resultTable } from '@jobmesh/peer/coord'
import { INDEX_DOC, macroDocName, roundDocName } from '@jobmesh/peer/crdt'
import { roundKey } from '@jobmesh/peer/jobs'
import { readAnnouncedJobs } from '@jobmesh/peer/observe'
import { createPeer } from '@jobmesh/peer'
import { peerInit, startCommand } from '../../../packages/peer/dist/cli/commands/start.js'
import { untilSignal } from '../../../packages/peer/dist/cli/signals.js'

/** The highest lease term a result record can name: its result counts once the MicroJob's lease is gone. */
const HIJACK_TERM = 0xffff_ffff

/**
 * Copies every other peer's result in MacroJob `m` of `jobId`'s round `round` into this peer's slot, now and as they
 * appear (in the MacroJob's doc, where the results live).
 */
async function hijackMacroJob (peer, signer, jobId, round, m) {
  const verifier = recordVerifier()
  const key = roundKey(jobId, round)
  const doc = await peer.docs.open(macroDocName(roundDocName(jobId, round), m))
  const map = doc.getMap(RESULTS_MAP)
  const table = resultTable({ signer, verifier }, map, key)
  const copied = new Set()
  let scheduled = false
  const copy = () => {
    scheduled = false
    const found = new Map()
    for (const [k, value] of map.entries()) {
      for (const [micro, r] of readResults(verifier, resultScope(key), k, value) ?? []) {
        if (r.signer !== signer.peerId && !copied.has(micro)) found.set(micro, r)
      }
    }
    if (found.size === 0) return
    doc.transact(() => {
      for (const [micro, r] of found) {
        const [m, i] = micro.split('.').map(Number)
        table.write(m, i, { term: HIJACK_TERM, outputHash: r.outputHash, size: r.size, outputCid: r.outputCid })
        copied.add(micro)
      }
    })
    for (const [micro, r] of found) process.stdout.write(`hijacked ${jobId} ${micro} from ${r.signer}\n`)
  }
  // after the transaction that brought the results (a write inside an observer would nest in it)
  map.observe(() => {
    if (!scheduled) setImmediate(copy)
    scheduled = true
  })
  copy()
}

/** Follows the index: every announced round of every job is hijacked. */
async function hijack (peer) {
  const signer = recordSigner(peer.node.privateKey, peer.node.peerId.toString())
  const followed = new Set()
  const index = await peer.docs.open(INDEX_DOC)
  const follow = async () => {
    for (const job of (await readAnnouncedJobs(peer.docs)).values()) {
      if (followed.has(job.key)) continue
      followed.add(job.key)
      for (let m = 0; m < job.macroJobs; m++) {
        hijackMacroJob(peer, signer, job.jobId, job.round, m).catch(err => { process.stderr.write(`hijack ${job.key} MacroJob ${m} failed: ${err.message}\n`) })
      }
    }
  }
  index.getMap(INDEX_JOBS_MAP).observe(() => { follow().catch(() => {}) })
  await follow()
}

const program = new Command('hijacking-peer').exitOverride()
startCommand(program)
// `jobmesh start`'s options and peer; the test peer needs that peer in hand (its docs and key) to copy with it
program.commands.find(c => c.name() === 'start').action(async (opts) => {
  const peer = await createPeer(await peerInit(opts))
  await hijack(peer)
  const s = peer.status()
  process.stdout.write(`peer id   ${s.peerId}\n`)
  for (const a of s.addresses) process.stdout.write(`listening ${a}\n`)
  process.stdout.write('ready\n')
  await untilSignal(opts.exitWithParent === true)
  await peer.stop()
})
try {
  await program.parseAsync(process.argv.slice(2), { from: 'user' })
} catch (err) {
  process.stderr.write(`error: ${err.message}\n`)
  process.exitCode = 1
}
