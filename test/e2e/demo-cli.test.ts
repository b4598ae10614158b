import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { waitFor } from '@jobmesh/testkit'
import { startCli } from './cli.js'
import type { CliProcess } from './cli.js'

/** The built `npm run demo` script. */
const DEMO = fileURLToPath(new URL('../../examples/dist/demo.js', import.meta.url))
const STARTING = /^starting a devnet/

// the demo's own checks only: no test here runs a job (each would take a minute)
describe('npm run demo refuses what would fail after the job was paid, before any devnet starts', () => {
  const running: CliProcess[] = []
  let dir = ''

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-demo-cli-'))
  })

  afterEach(async () => {
    for (const p of running.splice(0)) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGINT')
      await p.exited
    }
    await rm(dir, { recursive: true, force: true })
  })

  /** Runs the demo until it exits or starts a devnet (then the test fails, and afterEach stops it). */
  async function refused (args: string[]): Promise<CliProcess> {
    const demo = startCli(args, {}, DEMO)
    running.push(demo)
    await waitFor(() => demo.child.exitCode !== null || demo.stdout.some(l => STARTING.test(l)), { what: 'the demo to exit or start a devnet', timeoutMs: 30_000 })
    expect(demo.stdout.filter(l => STARTING.test(l)), demo.stderr.join('\n')).toEqual([])
    expect(await demo.exited).toBe(2)
    return demo
  }

  it('--peers 3: the job\'s k >= 3 verifiers need 4 peers (with too few it hung after "all MicroJobs done"); --help says so', async () => {
    const two = await refused(['--peers', '3', '--out', join(dir, 'm.png')])
    expect(two.stderr[0]).toMatch(/^error: --peers must be a whole number from 4 to 12: the job's k >= 3 verifiers are drawn among the peers besides the one that submits its results/)
    const help = startCli(['--help'], {}, DEMO)
    running.push(help)
    expect(await help.exited).toBe(0)
    expect(help.stdout.join('\n')).toMatch(/--peers N +peers to run, 4 to 12 \(default 4\); the job has k = min\(3, N - 1\) verifiers/)
  })

  it('an --out whose folder cannot be made (a file on the way) is a usage error before anything runs', async () => {
    const file = join(dir, 'a-file')
    await writeFile(file, 'not a dir\n')
    const out = join(file, 'm.png')
    const below = await refused(['--out', out])
    expect(below.stderr[0]).toBe(`error: --out ${out}: its folder ${file} cannot be made: it, or a folder above it, is a file`)
    const folder = await refused(['--out', dir])
    expect(folder.stderr[0]).toBe(`error: --out ${dir} is a directory: name a file, such as ${join(dir, 'mandelbrot.png')}`)
  })

  it('an --out in a folder that does not exist yet: the folder is made before the devnet starts', async () => {
    const out = join(dir, 'new', 'sub', 'm.png')
    const demo = startCli(['--peers', '4', '--out', out], {}, DEMO)
    running.push(demo)
    await demo.line(STARTING, 30_000)
    expect(existsSync(join(dir, 'new', 'sub'))).toBe(true)
    // stopped here: the rest is a whole demo run. A Ctrl-C stops what it started and says so (the local chain's signal
    // hook used to re-raise the signal once the demo's one-shot handler had run: it died at once, its peers unstopped)
    demo.child.kill('SIGINT')
    await waitFor(() => demo.child.exitCode !== null || demo.child.signalCode !== null, { what: 'the demo to stop after Ctrl-C', timeoutMs: 30_000 })
    expect(await demo.exited).toBe(130)
    expect(demo.stdout).toContain('stopping...')
    expect(demo.stdout.at(-1)).toBe('stopped')
  })
})
