#!/usr/bin/env node
// Benchmark runner.
//
//   node bench/run.js            runs every bench/*.bench.js, one after another
//   node bench/run.js gas crdt-sync   runs bench/gas.bench.js and bench/crdt-sync.bench.js
//   node bench/run.js --list     lists the benches it finds
//
// Convention: a bench is a file `bench/<name>.bench.js` (ESM, plain JS, runnable on its own with
// `node bench/<name>.bench.js`). It prints a human-readable table to stdout and writes its numbers to
// `bench/out/<name>.json` (bench/out/ is gitignored). Exit code 0 = the bench ran (numbers may still be
// bad: benches measure, tests judge). Benches import the built packages (`@jobmesh/*` -> dist/), so run
// `npm run build` first. Each bench runs in its own process so one cannot disturb the next.
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const dir = path.dirname(fileURLToPath(import.meta.url))
const SUFFIX = '.bench.js'
const available = readdirSync(dir).filter((f) => f.endsWith(SUFFIX)).map((f) => f.slice(0, -SUFFIX.length)).sort()
const args = process.argv.slice(2)

if (args.includes('--list')) {
  process.stdout.write(available.join('\n') + '\n')
  process.exit(0)
}

const wanted = args.filter((a) => !a.startsWith('--'))
const unknown = wanted.filter((n) => !available.includes(n.replace(/\.bench\.js$/, '')))
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown bench(es): ${unknown.join(', ')}; available: ${available.join(', ') || '(none)'}\n`)
  process.exit(2)
}
const selected = wanted.length > 0 ? wanted.map((n) => n.replace(/\.bench\.js$/, '')) : available

function run (name) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(dir, name + SUFFIX)], { stdio: 'inherit' })
    const forward = (sig) => child.kill(sig)
    process.on('SIGINT', forward)
    process.on('SIGTERM', forward)
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward)
      process.off('SIGTERM', forward)
      resolve(code ?? (signal != null ? 1 : 0))
    })
  })
}

const failed = []
for (const name of selected) {
  process.stdout.write(`\n=== bench ${name} ===\n`)
  const started = Date.now()
  const code = await run(name)
  process.stdout.write(`=== ${name}: ${code === 0 ? 'done' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s ===\n`)
  if (code !== 0) failed.push(name)
}
if (failed.length > 0) {
  process.stderr.write(`bench: failed: ${failed.join(', ')}\n`)
  process.exit(1)
}
