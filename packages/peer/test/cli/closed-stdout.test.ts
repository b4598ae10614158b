import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI_BIN } from '../../src/devnet/index.js'

/** Runs `jobmesh` with a stdout whose reader is gone before it writes (`jobmesh status | head` after head exited). */
async function closedStdout (args: string[]): Promise<{ code: number | null, stderr: string }> {
  const child = spawn(process.execPath, [CLI_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, JOBMESH_RPC_URL: '' } })
  child.stdout.destroy()
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d })
  const [code] = await once(child, 'close') as [number | null]
  return { code, stderr }
}

describe('jobmesh with its stdout closed by the reader', () => {
  let dir = ''
  afterEach(async () => {
    if (dir !== '') await rm(dir, { recursive: true, force: true })
    dir = ''
  })

  it('ends quietly with its usual exit code, no EPIPE stack trace', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-epipe-'))
    // `id` writes after reading (or making) the identity, `--help` at once
    for (const args of [['id', '--data-dir', join(dir, 'peer')], ['--help']]) {
      const { code, stderr } = await closedStdout(args)
      expect(stderr, args.join(' ')).not.toMatch(/EPIPE|Unhandled 'error' event/)
      expect(code, args.join(' ')).toBe(0)
    }
  }, 60_000)
})
