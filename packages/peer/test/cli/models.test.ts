import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI_BIN, spawnPeer } from '../../src/devnet/index.js'
import type { PeerProcess } from '../../src/devnet/index.js'
import type { PeerStatus } from '../../src/index.js'

const run = promisify(execFile)
const WEIGHTS = 'ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'
let peer: PeerProcess | undefined
let dir: string | undefined

afterEach(async () => {
  await peer?.stop()
  peer = undefined
  if (dir != null) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

describe('jobmesh start --model', () => {
  it('keeps the models at hand and jobmesh status shows them; an empty model is a usage error', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-models-'))
    const dataDir = join(dir, 'peer')
    peer = await spawnPeer({ name: 'models', dataDir, args: ['--listen', '/ip4/127.0.0.1/tcp/0', '--model', WEIGHTS, '--model', 'sdxl', '--model', 'sdxl'] })
    const json = JSON.parse((await run(process.execPath, [CLI_BIN, 'status', '--json', '--data-dir', dataDir], { timeout: 10_000 })).stdout) as PeerStatus
    expect(json.models).toEqual({ held: [WEIGHTS, 'sdxl'] })
    const text = (await run(process.execPath, [CLI_BIN, 'status', '--data-dir', dataDir], { timeout: 10_000 })).stdout
    expect(text).toContain(`models    held: ${WEIGHTS}, sdxl; last run: none`)

    const bad = await run(process.execPath, [CLI_BIN, 'start', '--data-dir', join(dir, 'bad'), '--model', ' '], { timeout: 10_000 })
      .then(() => ({ code: 0, stderr: '' }), (err: { code: number, stderr: string }) => err)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--model.*non-empty id/)
  })
})
