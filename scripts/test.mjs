#!/usr/bin/env node
// `npm test`: forge's Solidity tests beside the TypeScript build, then beside vitest. forge compiles the contracts and
// their tests with solc-js on one core (~45 s): it starts with the build, which holds the other core (tsc, ~20 s), and
// its tests then run while vitest's package files leave part of two cores idle (they wait on anvil blocks and
// timers). One after the other, as before, the whole run took ~70 s longer (and forge after the build, ~20 s). vitest
// prints as it goes; forge's output comes as one block when forge ends. Arguments go to vitest (`npm test -- <files>`).
// Exit status: the build's if it failed, else forge's if it failed, else vitest's.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Runs a command from the repository root; its output is inherited, or kept (`keep`) and returned. */
function run (command, args, keep) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: keep ? ['ignore', 'pipe', 'pipe'] : 'inherit' })
    const chunks = []
    if (keep) {
      child.stdout.on('data', c => chunks.push(c))
      child.stderr.on('data', c => chunks.push(c))
    }
    child.on('error', err => { chunks.push(Buffer.from(`${command}: ${err.message}\n`)); resolve({ code: 1, output: Buffer.concat(chunks) }) })
    child.on('close', (code, signal) => { resolve({ code: code ?? (signal != null ? 1 : 0), output: Buffer.concat(chunks) }) })
  })
}

const forge = run('npm', ['run', '--silent', 'test:sol'], true).then(result => {
  process.stdout.write(`\n== forge test (Solidity), exit ${result.code}\n`)
  process.stdout.write(result.output)
  return result
})
const build = await run('npm', ['run', 'build'], false)
if (build.code !== 0) {
  await forge
  process.exit(build.code)
}
const vitest = run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], false)
const [f, v] = await Promise.all([forge, vitest])
process.exit(f.code !== 0 ? f.code : v.code)
