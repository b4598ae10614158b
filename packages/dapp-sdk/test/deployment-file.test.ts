import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readDeployment, readKeyFile } from '../src/cli/options.js'
import { connectChain } from '../src/chain/connection.js'

let dir = ''
afterEach(async () => { if (dir !== '') await rm(dir, { recursive: true, force: true }) })

describe('readDeployment (the CLI\'s --deployment)', () => {
  it('refuses a chainId or blockNumber that is there but not a number (a chainId "abc" was dropped in silence)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-deployment-'))
    const file = async (d: unknown): Promise<string> => { const f = join(dir, `${Math.random()}.json`); await writeFile(f, JSON.stringify(d)); return f }
    const escrow = '0x' + '22'.repeat(20)
    expect(await readDeployment(await file({ jobEscrow: escrow, chainId: 31337, blockNumber: 5 }))).toEqual({ jobEscrow: escrow, chainId: 31337, blockNumber: 5 })
    expect(await readDeployment(await file({ jobEscrow: escrow }))).toEqual({ jobEscrow: escrow })
    for (const [d, text] of [
      [{ jobEscrow: escrow, chainId: 'abc' }, 'has chainId "abc": expected a positive whole number'],
      [{ jobEscrow: escrow, chainId: 0 }, 'has chainId 0: expected a positive whole number'],
      [{ jobEscrow: escrow, blockNumber: -1 }, 'has blockNumber -1: expected a whole number']
    ] as const) {
      const path = await file(d)
      const err = await readDeployment(path).catch((e: unknown) => e as Error)
      expect(err.name).toBe('InvalidConfigError')
      expect(err.message).toBe(`the deployment ${path} ${text}`)
    }
  })

  it('an empty JOBMESH_DEPLOYMENT is a missing deployment, said as one', async () => {
    const err = await readDeployment('').catch((e: unknown) => e as Error)
    expect(err.name).toBe('InvalidConfigError')
    expect(err.message).toMatch(/^--deployment <file> is required/)
  })
  it('a file that is not there, a folder or no JSON: said in words, not as the OS\'s error code', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-deployment-'))
    const message = async (p: Promise<unknown>): Promise<string> => await p.then(() => '', (e: Error) => `${e.name}: ${e.message}`)
    expect(await message(readKeyFile(join(dir, 'none.key')))).toBe(`InvalidConfigError: cannot read the key file ${join(dir, 'none.key')}: no such file`)
    await writeFile(join(dir, 'short.key'), '0x1234\n')
    expect(await message(readKeyFile(join(dir, 'short.key')))).toBe(`InvalidConfigError: the key file ${join(dir, 'short.key')} does not hold 32 bytes of hex (64 hex digits, 0x optional)`)
    await writeFile(join(dir, 'bare.key'), ` ${'ab'.repeat(32)}\n`)
    expect(await readKeyFile(join(dir, 'bare.key'))).toBe(`0x${'ab'.repeat(32)}`)
    expect(await message(readDeployment(dir))).toBe(`InvalidConfigError: cannot read the deployment ${dir}: it is a directory`)
    await writeFile(join(dir, 'bad.json'), '{bad')
    expect(await message(readDeployment(join(dir, 'bad.json')))).toMatch(new RegExp(`^InvalidConfigError: cannot read the deployment ${join(dir, 'bad.json')}: not JSON \\(`))
  })
})

describe('the SDK given a deployment file\'s path where the deployment goes', () => {
  it('says to read the file, not that the deployment\'s jobEscrow is no address', async () => {
    const signer = '0x' + '11'.repeat(32)
    const err = await connectChain({ rpcUrl: 'http://127.0.0.1:1', signer, deployment: '/tmp/deployments/31337.json' as never }).catch((e: unknown) => e as Error)
    expect(err.name).toBe('InvalidConfigError')
    expect(err.message).toBe('deployment must be the deployment object, not a string (/tmp/deployments/31337.json): ' +
      "read its file first, e.g. JSON.parse(await readFile(path, 'utf8'))")
  })
})
