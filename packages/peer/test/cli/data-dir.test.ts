import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createInterface } from 'node:readline'
import { waitFor } from '@jobmesh/testkit'
import { CLI_BIN } from '../../src/devnet/index.js'
import { jobmesh } from './run-cli.js'
import type { ChildProcess } from 'node:child_process'

describe('a data dir that is a file is a usage error (exit 2) before anything starts', () => {
  let dir = ''
  let file = ''

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-data-dir-'))
    file = join(dir, 'a-file')
    await writeFile(file, 'not a dir\n')
  })

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('jobmesh start: --data-dir, a path below a file, and JOBMESH_DATA_DIR', async () => {
    const flag = await jobmesh(['start', '--data-dir', file, '--listen', '/ip4/127.0.0.1/tcp/0'])
    expect(flag.code, flag.stderr).toBe(2)
    expect(flag.stderr).toContain(`error: --data-dir ${file} is a file, not a directory`)
    expect(flag.stderr).not.toContain('EEXIST')
    expect(flag.stdout).not.toContain('starting jobmesh peer')
    const below = await jobmesh(['start', '--data-dir', join(file, 'peer'), '--listen', '/ip4/127.0.0.1/tcp/0'])
    expect(below.code, below.stderr).toBe(2)
    expect(below.stderr).toContain(`error: --data-dir ${join(file, 'peer')}: ${file} is a file, not a directory`)
    const env = await jobmesh(['start', '--listen', '/ip4/127.0.0.1/tcp/0'], { JOBMESH_DATA_DIR: file })
    expect(env.code, env.stderr).toBe(2)
    expect(env.stderr).toContain(`error: JOBMESH_DATA_DIR ${file} is a file, not a directory`)
    expect(await readFile(file, 'utf8')).toBe('not a dir\n')
  })

  it('jobmesh start: a bootstrap address without its /p2p/<peerId> is refused with the flags, before the start, and makes no data dir', async () => {
    const peerDir = join(dir, 'peer')
    const out = await jobmesh(['start', '--data-dir', peerDir, '--listen', '/ip4/127.0.0.1/tcp/0', '--bootstrap', '/ip4/127.0.0.1/tcp/4001'])
    expect(out.code, out.stderr).toBe(2)
    expect(out.stderr).toContain('bootstrap address /ip4/127.0.0.1/tcp/4001 lacks /p2p/<peerId>')
    expect(out.stdout).not.toContain('starting jobmesh peer')
    await expect(stat(peerDir)).rejects.toHaveProperty('code', 'ENOENT')
  })

  it('jobmesh start: a bootstrap address whose /p2p part is not a peer id is refused the same way (it failed at the start with libp2p\'s "Please pass a multibase decoder ...")', async () => {
    const peerDir = join(dir, 'peer')
    for (const id of ['notapeerid', 'QmFoo']) {
      const addr = `/ip4/127.0.0.1/tcp/33711/p2p/${id}`
      const out = await jobmesh(['start', '--data-dir', peerDir, '--listen', '/ip4/127.0.0.1/tcp/0', '--vram', '16', '--bootstrap', addr])
      expect(out.code, out.stderr).toBe(2)
      // the one line, and the usage hint: no stack trace
      expect(out.stderr.split('\n').filter(l => l !== '')).toEqual([
        `error: bootstrap address ${addr}: its /p2p part "${id}" is not a peer id (example: /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW...)`,
        '(run with --help for usage)'
      ])
      expect(out.stdout).not.toContain('starting jobmesh peer')
    }
    await expect(stat(peerDir)).rejects.toHaveProperty('code', 'ENOENT')
  })

  it('jobmesh status says the path is a file, not that no peer runs there', async () => {
    const status = await jobmesh(['status', '--data-dir', file])
    expect(status.code, status.stderr).toBe(2)
    expect(status.stderr).toContain(`error: --data-dir ${file} is a file, not a directory`)
    expect(status.stderr).not.toContain('ENOTDIR')
    // a dir with no peer still says so, as a runtime failure
    const empty = await jobmesh(['status', '--data-dir', join(dir, 'nothing-here')])
    expect(empty.code).toBe(1)
    expect(empty.stderr).toContain(`no jobmesh peer is running with data dir ${join(dir, 'nothing-here')} (a running peer's is the --data-dir it was started with; default ~/.jobmesh) (ENOENT)`)
    // with --json each failure is one JSON document on stdout as well
    const json = await jobmesh(['status', '--data-dir', file, '--json'])
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stdout)).toEqual({ error: { name: 'UsageError', message: `--data-dir ${file} is a file, not a directory` } })
    const none = await jobmesh(['status', '--data-dir', join(dir, 'nothing-here'), '--json'])
    expect(none.code).toBe(1)
    expect((JSON.parse(none.stdout) as { error: { message: string } }).error.message).toContain(`no jobmesh peer is running with data dir ${join(dir, 'nothing-here')}`)
    // under /proc (Node's mkdir -p spins there for minutes at full CPU): refused before any mkdir, start and status
    for (const cmd of ['start', 'status']) {
      const proc = await jobmesh([cmd, '--data-dir', '/proc/jobmesh-test/peer'])
      expect(proc.code, proc.stderr).toBe(2)
      expect(proc.stderr).toContain('error: --data-dir /proc/jobmesh-test/peer is on /proc, the kernel\'s own file system: not a place for data')
    }
    const flag = await jobmesh(['status', '--json', '--port', '1'])
    expect(flag.code).toBe(2)
    expect(JSON.parse(flag.stdout)).toMatchObject({ error: { name: 'UsageError', code: 'commander.unknownOption' } })
  })

  it('jobmesh id says the path is a file (exit 2), with --json too', async () => {
    const id = await jobmesh(['id', '--data-dir', file])
    expect(id.code, id.stderr).toBe(2)
    expect(id.stderr).toContain(`error: --data-dir ${file} is a file, not a directory`)
    expect(id.stderr).not.toContain('EEXIST')
    const json = await jobmesh(['id', '--data-dir', file, '--json'])
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stdout)).toEqual({ error: { name: 'UsageError', message: `--data-dir ${file} is a file, not a directory` } })
  })
})

describe('a second start on the data dir of a running peer', () => {
  let dir = ''
  let first: ChildProcess | undefined

  afterEach(async () => {
    if (first != null && first.exitCode === null && first.signalCode === null) {
      const exited = once(first, 'exit')
      first.kill('SIGKILL')
      await exited
    }
    first = undefined
    await rm(dir, { recursive: true, force: true })
  })

  it('is refused as such (DataDirInUseError), before it opens the stores whose lock error could not say why', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-data-dir-'))
    first = spawn(process.execPath, [CLI_BIN, 'start', '--data-dir', dir, '--listen', '/ip4/127.0.0.1/tcp/0'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, JOBMESH_RPC_URL: '', JOBMESH_BOOTSTRAP: '' } })
    const lines: string[] = []
    createInterface({ input: first.stdout! }).on('line', l => { lines.push(l) })
    await waitFor(() => lines.some(l => l.startsWith('ready')), { timeoutMs: 30_000, what: `the first peer ready (so far: ${lines.join(' | ')})` })
    const second = await jobmesh(['start', '--data-dir', dir, '--listen', '/ip4/127.0.0.1/tcp/0'])
    expect(second.code, second.stderr).toBe(1)
    expect(second.stderr).toContain(`error: another jobmesh peer is running on ${dir}`)
    expect(second.stdout).not.toContain('starting jobmesh peer')
    // the running peer is untouched
    expect(first.exitCode).toBe(null)
  })
})
