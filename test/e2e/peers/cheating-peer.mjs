#!/usr/bin/env node
// A jobmesh peer that returns wrong outputs, for the end-to-end tests of cheating (test code only: the shipped CLI
// and createPeer have no cheat mode). It is `jobmesh start` with an executor that flips the first byte of the
// outputs it selects. Usage (the devnet runs it through its `entry` peer option):
//   node cheating-peer.mjs <mode> start <jobmesh start options>
// <mode>: `all` (every MicroJob it runs), `first` (only the first MicroJob it runs, re-runs included),
// `first-per-job` (the first MicroJob it runs of each job), `first-processed-per-job` (the first MicroJob of each job
// it runs as a processor, i.e. while the job is Open on chain: its verification re-runs stay honest),
// `every:<n>` (MicroJobs with (macroIndex + index) % n === 0). `withhold-<mode>`: the same, and it never stores the
// wrong outputs (its results name them, nobody can fetch them).
// It prints `cheated on <jobId> <macroIndex>.<index>` for each wrong output.
import '../../../packages/peer/dist/cli/polyfill.js'
/* eslint-disable @typescript-eslint/explicit-function-return-type -- plain JS has no return type annotations */
import { Command } from 'commander'
import { readFile } from 'node:fs/promises'
import { wasmMicroJobExecutor } from '@jobmesh/peer/executor'
import { connect, createProvider } from '@jobmesh/contracts'
import { startCommand } from '../../../packages/peer/dist/cli/commands/start.js'
import { outputHash } from '../../../packages/peer/dist/executor/index.js'
import { rawOutputCid } from '../../../packages/peer/dist/storage/index.js'

const [given, ...rest] = process.argv.slice(2)
const withhold = given?.startsWith('withhold-') === true
const mode = withhold ? given.slice('withhold-'.length) : given
/** The wrong outputs not to store (by identity: the processor stores the very bytes its executor returned). */
const withheld = new WeakSet()
let ran = 0
const jobs = new Set()
const flag = (name) => rest[rest.indexOf(name) + 1]
let escrow
const isOpen = async (jobId) => {
  if (escrow == null) {
    const deployment = JSON.parse(await readFile(flag('--deployment'), 'utf8'))
    escrow = connect(deployment, createProvider(flag('--rpc'), { chainId: deployment.chainId })).jobEscrow
  }
  return Number(await escrow.statusOf(jobId)) === 1
}
const selects = async (task) => {
  if (mode === 'all') return true
  if (mode === 'first-processed-per-job') {
    if (jobs.has(task.jobId) || !(await isOpen(task.jobId))) return false
    jobs.add(task.jobId)
    return true
  }
  if (mode === 'first') return ran++ === 0
  if (mode === 'first-per-job') {
    if (jobs.has(task.jobId)) return false
    jobs.add(task.jobId)
    return true
  }
  const every = /^every:(\d+)$/.exec(mode ?? '')
  if (every != null) return (task.macroIndex + task.index) % Number(every[1]) === 0
  throw new Error(`cheating-peer: unknown mode ${mode}`)
}

const flip = async (task, output) => {
  if (!(await selects(task))) return output
  const wrong = output.byteLength === 0 ? new Uint8Array(1) : output.slice()
  wrong[0] ^= 0xff
  if (withhold) withheld.add(wrong)
  process.stdout.write(`cheated on ${task.jobId} ${task.macroIndex}.${task.index}\n`)
  return wrong
}

// a processor's runs and a verifier's re-runs alike (`first-processed-per-job` tells them apart by the job's status)
const cheating = (honest) => ({
  async run (task, options) {
    const { output, digest } = await honest.run(task, options)
    return { output: await flip(task, output), digest }
  }
})

const program = new Command('cheating-peer').exitOverride()
startCommand(program, {
  executor: ({ store, wasm }) => {
    if (withhold) {
      // the processor's storeOutput calls store.addOutput: a withheld output gets its CID, and no block anywhere
      const addOutput = store.addOutput.bind(store)
      store.addOutput = async (bytes, options) => withheld.has(bytes) ? rawOutputCid(outputHash(bytes)) : await addOutput(bytes, options)
    }
    return cheating(wasmMicroJobExecutor({ store, executor: wasm }))
  }
})
try {
  await program.parseAsync(rest, { from: 'user' })
} catch (err) {
  process.stderr.write(`error: ${err.message}\n`)
  process.exitCode = 1
}
