import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { waitFor } from '@jobmesh/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { CONTROL_SOCKET } from '../../src/cli/constants.js'
import { fetchStatus, startControlServer } from '../../src/cli/control.js'
import { CLI_BIN } from '../../src/devnet/index.js'
import type { ChildProcess } from 'node:child_process'
import type { Server } from 'node:net'

interface Started { child: ChildProcess, lines: string[], exited: Promise<unknown> }

function start (dataDir: string): Started {
  const child = spawn(process.execPath, [CLI_BIN, 'start', '--data-dir', dataDir, '--listen', '/ip4/127.0.0.1/tcp/0'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, JOBMESH_RPC_URL: '', JOBMESH_BOOTSTRAP: '' } })
  const started: Started = { child, lines: [], exited: once(child, 'exit') }
  createInterface({ input: child.stdout }).on('line', l => started.lines.push(l))
  createInterface({ input: child.stderr }).on('line', l => started.lines.push(l))
  return started
}

describe('the control socket of a data dir', () => {
  const running: Started[] = []
  const servers: Server[] = []
  let dir = ''

  afterEach(async () => {
    for (const s of running.splice(0)) {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL')
      await s.exited
    }
    for (const server of servers.splice(0)) await new Promise(resolve => server.close(resolve))
    if (dir !== '') await rm(dir, { recursive: true, force: true })
    dir = ''
  })

  it('a peer killed with SIGKILL leaves its socket; the next start on the dir takes it over and answers status', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-control-'))
    const dataDir = join(dir, 'peer')
    const first = start(dataDir)
    running.push(first)
    await waitFor(() => first.lines.some(l => l.startsWith('ready')), { what: 'the first peer ready', timeoutMs: 30_000 })
    first.child.kill('SIGKILL')
    await waitFor(() => first.child.signalCode ?? undefined, { what: 'the first peer killed', timeoutMs: 15_000 })
    expect(existsSync(join(dataDir, CONTROL_SOCKET))).toBe(true)

    const second = start(dataDir)
    running.push(second)
    await waitFor(() => second.lines.some(l => l.startsWith('ready') || l.startsWith('error')), { what: 'the second start to end', timeoutMs: 30_000 })
    expect(second.lines.filter(l => l.startsWith('error'))).toEqual([])
    const status = await fetchStatus(join(dataDir, CONTROL_SOCKET), 10_000) as { peerId: string }
    expect(second.lines).toContain(`peer id   ${status.peerId}`)
  }, 60_000)

  it('a socket something still accepts on, however slowly it answers, is a running peer\'s: refused, not replaced', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-control-'))
    const path = join(dir, CONTROL_SOCKET)
    // accepts and never answers (a peer whose report is waiting on the chain)
    const busy = createServer(() => {})
    servers.push(busy)
    await new Promise<void>(resolve => busy.listen(path, resolve))
    const err = await startControlServer(dir, () => ({})).catch((e: unknown) => e as Error)
    expect(err.name).toBe('DataDirInUseError')
    expect(existsSync(path)).toBe(true)
  })
})
