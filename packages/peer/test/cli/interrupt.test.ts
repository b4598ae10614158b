import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { waitFor } from '@jobmesh/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI_BIN } from '../../src/devnet/index.js'
import type { ChildProcess } from 'node:child_process'

interface Cli {
  child: ChildProcess
  lines: string[]
  stdout: string[]
  stderr: string[]
  /** Exit code; null when a signal killed it. */
  exited: Promise<number | null>
}

function jobmesh (args: string[]): Cli {
  const child = spawn(process.execPath, [CLI_BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, JOBMESH_RPC_URL: '', JOBMESH_BOOTSTRAP: '' } })
  const cli: Cli = { child, lines: [], stdout: [], stderr: [], exited: once(child, 'exit').then(([code]) => code as number | null) }
  createInterface({ input: child.stdout }).on('line', l => { cli.stdout.push(l); cli.lines.push(l) })
  createInterface({ input: child.stderr }).on('line', l => { cli.stderr.push(l); cli.lines.push(l) })
  return cli
}

async function line (cli: Cli, re: RegExp, timeoutMs = 30_000): Promise<void> {
  await waitFor(() => cli.lines.some(l => re.test(l)), { what: `a line matching ${re} (so far: ${cli.lines.join(' | ')})`, timeoutMs })
}

describe('Ctrl-C before ready stops what was started, says so and exits 130', () => {
  const running: Cli[] = []
  let dir = ''

  afterEach(async () => {
    for (const cli of running.splice(0)) {
      if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL')
      await cli.exited
    }
    if (dir !== '') await rm(dir, { recursive: true, force: true })
    dir = ''
  })

  it('jobmesh start: interrupted while the peer starts; after ready it still stops cleanly with 0', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-start-interrupt-'))
    const dataDir = join(dir, 'peer')
    const early = jobmesh(['start', '--data-dir', dataDir, '--listen', '/ip4/127.0.0.1/tcp/0'])
    running.push(early)
    await line(early, /^starting jobmesh peer/)
    early.child.kill('SIGINT')
    // it ends by itself: a libp2p node, a store or a socket left open would keep it running
    expect(await early.exited).toBe(130)
    expect(early.stderr).toContain('interrupted before the peer was ready: stopped')
    expect(early.stdout).not.toContain('ready (Ctrl-C to stop)')
    expect(existsSync(join(dataDir, 'control.sock'))).toBe(false)

    // the data dir is free again; Ctrl-C after ready is the clean stop it was
    const late = jobmesh(['start', '--data-dir', dataDir, '--listen', '/ip4/127.0.0.1/tcp/0'])
    running.push(late)
    await line(late, /^ready/)
    late.child.kill('SIGINT')
    expect(await late.exited).toBe(0)
    expect(late.stdout.slice(-2)).toEqual(['stopping...', 'stopped'])
  })

  it('jobmesh devnet: interrupted while it deploys or starts its peers', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-devnet-interrupt-'))
    const devnet = jobmesh(['devnet', '--peers', '2', '--no-http', '--dir', join(dir, 'net')])
    running.push(devnet)
    await line(devnet, /^ {2}contracts/)
    devnet.child.kill('SIGINT')
    expect(await devnet.exited).toBe(130)
    expect(devnet.stderr).toContain('interrupted before the devnet was ready: stopped')
    expect(devnet.stdout).not.toContain('running (Ctrl-C to stop)')
  })
})
