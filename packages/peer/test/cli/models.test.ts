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
  it('keeps the models at hand and jobmesh status shows them, an ipfs:// one as fetching until it is; bad models are usage errors', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-models-'))
    const dataDir = join(dir, 'peer')
    // nobody serves WEIGHTS: it is not held (it was listed as held from the first second, and jobs naming it were
    // chosen first)
    peer = await spawnPeer({ name: 'models', dataDir, args: ['--listen', '/ip4/127.0.0.1/tcp/0', '--model', WEIGHTS, '--model', 'sdxl', '--model', 'sdxl'] })
    const json = JSON.parse((await run(process.execPath, [CLI_BIN, 'status', '--json', '--data-dir', dataDir], { timeout: 10_000 })).stdout) as PeerStatus
    expect(json.models).toEqual({ held: ['sdxl'], fetching: [WEIGHTS] })
    const text = (await run(process.execPath, [CLI_BIN, 'status', '--data-dir', dataDir], { timeout: 10_000 })).stdout
    expect(text).toContain('models    held: sdxl; last run: none')
    expect(text).toContain(`          fetching (not held yet): ${WEIGHTS}`)

    const refused = async (models: string[]): Promise<{ code: number, stderr: string }> =>
      await run(process.execPath, [CLI_BIN, 'start', '--data-dir', join(dir ?? '', 'bad'), ...models.flatMap(m => ['--model', m])], { timeout: 30_000 })
        .then(() => ({ code: 0, stderr: '' }), (err: { code: number, stderr: string }) => err)
    const empty = await refused([' '])
    expect(empty.code).toBe(2)
    expect(empty.stderr).toMatch(/--model.*non-empty id/)
    // the peer ran on with these, fetching or recording them for as long as it ran
    for (const [models, said] of [
      [['ipfs://garbage'], /^error: --model: not a CID in ipfs:\/\/garbage \(an ipfs:\/\/ model is ipfs:\/\/<cid> of the content jobs name\)$/m],
      [['x'.repeat(300)], /^error: --model: x{32}\.\.\. is 300 bytes long; the registry records ids of at most 256$/m],
      [Array.from({ length: 17 }, (_, i) => `m${i}`), /^error: --model: 17 models; the registry records at most 16 per node$/m]
    ] as const) {
      const r = await refused([...models])
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(said)
    }
  })
})
