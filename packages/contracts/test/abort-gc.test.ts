import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const built = fileURLToPath(new URL('../dist/index.js', import.meta.url))

/**
 * Runs in a Node with `--expose-gc`: 100 combined signals with a 20 ms timeout, each kept and listened to, garbage
 * collections, and how many fired, for `anySignal` and for `AbortSignal.any([AbortSignal.timeout()])`.
 */
const SCRIPT = `
const { anySignal } = await import(process.argv[1])
const count = async (make) => {
  let fired = 0
  const kept = []
  const aborted = []
  for (let i = 0; i < 100; i++) {
    const s = make()
    aborted.push(new Promise(resolve => s.addEventListener('abort', () => { fired++; resolve() })))
    kept.push(s)
  }
  // collections in later turns (a WeakRef lives to the end of the turn that made it), well within the 20 ms
  for (let i = 0; i < 5; i++) {
    globalThis.gc()
    await new Promise(resolve => setImmediate(resolve))
  }
  // every signal aborted, or 2 s gone (a signal that never fires)
  await Promise.race([Promise.all(aborted), new Promise(resolve => setTimeout(resolve, 2_000))])
  return kept.length === 100 ? fired : -1
}
const ours = await count(() => anySignal([new AbortController().signal], 20))
const builtin = await count(() => AbortSignal.any([new AbortController().signal, AbortSignal.timeout(20)]))
process.stdout.write(JSON.stringify({ ours, builtin }))
`

describe('anySignal', () => {
  it('times out after a garbage collection, which AbortSignal.any over AbortSignal.timeout does not do on Node 20', async () => {
    expect(existsSync(built), 'packages/contracts/dist is missing: run npm run build first').toBe(true)
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--input-type=module', '-e', SCRIPT, pathToFileURL(built).href], { timeout: 20_000 })
    const { ours, builtin } = JSON.parse(stdout) as { ours: number, builtin: number }
    // what Node does with its own is printed, not asserted (a later Node may fix it: nodejs/node#57736)
    console.info(`signals that fired after a GC: anySignal ${ours} of 100, AbortSignal.any + AbortSignal.timeout ${builtin} of 100 (Node ${process.version})`)
    expect(ours).toBe(100)
  })
})
