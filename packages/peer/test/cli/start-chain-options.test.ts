import { existsSync } from 'node:fs'
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createProvider, deploy, serializeDeployment } from '@jobmesh/contracts'
import { workerAnvil } from '@jobmesh/testkit/anvil'
import { Wallet } from 'ethers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { jobmesh } from './run-cli.js'
import type { Outcome } from './run-cli.js'
import type { Anvil, Deployment } from '@jobmesh/contracts'

/** `jobmesh start` on a chain, refused before it registers: the exit code and what it printed. */
async function start (args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return await jobmesh(['start', '--listen', '/ip4/127.0.0.1/tcp/0', ...args], env, 30_000)
}

describe('jobmesh start refuses bad chain input with one clear line, before any transaction', () => {
  let anvil: Anvil
  let dir: string
  let deployment: Deployment
  let keyFile: string
  let deploymentFile: string

  beforeEach(async () => {
    anvil = await workerAnvil({ accounts: 2 })
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider))
    provider.destroy()
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-start-chain-'))
    keyFile = join(dir, 'wallet.key')
    await writeFile(keyFile, anvil.accounts[1].privateKey)
    deploymentFile = join(dir, 'deployment.json')
    await writeFile(deploymentFile, serializeDeployment(deployment))
  })

  afterEach(async () => {
    await anvil.stop()
    await rm(dir, { recursive: true, force: true })
  })

  const chainArgs = (over: { deployment?: string, keyFile?: string } = {}): string[] =>
    ['--data-dir', join(dir, 'peer'), '--rpc', anvil.rpcUrl, '--deployment', over.deployment ?? deploymentFile, '--key-file', over.keyFile ?? keyFile]

  async function registered (): Promise<boolean> {
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    try {
      return (await provider.getTransactionCount(anvil.accounts[1].address)) > 0
    } finally {
      provider.destroy()
    }
  }

  it('VRAM: a whole number, and at least 1 on a chain (the registry refuses 0)', async () => {
    const fraction = await start([...chainArgs(), '--vram', '1.5'])
    expect(fraction.code).toBe(2)
    expect(fraction.stderr).toMatch(/--vram.*expected a whole number >= 0, got "1.5"/)
    const noScheme = await start(['--rpc', 'localhost:8545', '--deployment', deploymentFile, '--vram', '8'])
    expect(noScheme.code).toBe(2)
    expect(noScheme.stderr).toContain('expected an http:// or https:// URL such as http://127.0.0.1:8545, got "localhost:8545"')
    const none = await start(chainArgs())
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/--vram: registering on a chain needs the node's VRAM in whole GB, at least 1/)
    expect(await registered()).toBe(false)
  }, 60_000)

  it('--commit-timeout: not a number, or out of the registry\'s range, names the range', async () => {
    const word = await start([...chainArgs(), '--vram', '8', '--commit-timeout', 'x'])
    expect(word.code).toBe(2)
    expect(word.stderr).toMatch(/--commit-timeout.*expected a whole percent from 25 to 100, got "x"/)
    const low = await start([...chainArgs(), '--vram', '8', '--commit-timeout', '10'])
    expect(low.code).toBe(2)
    expect(low.stderr).toContain('--commit-timeout: expected a whole percent from 25 to 100, got 10')
    expect(await registered()).toBe(false)
  }, 60_000)

  it('a stake below the registry\'s minimum, a key file without a key, a deployment missing a field', async () => {
    const low = await start([...chainArgs(), '--vram', '8', '--stake', '0'])
    expect(low.code).toBe(2)
    expect(low.stderr).toContain('--stake: 0 ETH is below the registry\'s minimum stake of 0.01 ETH')
    // without a chain there is nothing to stake: refused, and no data dir made for a start that never began
    const noChain = await start(['--data-dir', join(dir, 'no-chain'), '--vram', '8', '--stake', '5'])
    expect(noChain.code).toBe(2)
    expect(noChain.stderr).toContain('--stake needs --rpc (or JOBMESH_RPC_URL)')
    await expect(stat(join(dir, 'no-chain'))).rejects.toHaveProperty('code', 'ENOENT')

    const badKey = join(dir, 'bad.key')
    await writeFile(badKey, 'not a key\n')
    const key = await start([...chainArgs({ keyFile: badKey }), '--vram', '8'])
    expect(key.code).toBe(2)
    expect(key.stderr).toContain(`the key file ${badKey} does not hold 32 bytes of hex (64 hex digits, 0x optional)`)
    // a key given in the variable that is not one is said to be malformed, not missing
    const noFile = ['--data-dir', join(dir, 'peer'), '--rpc', anvil.rpcUrl, '--deployment', deploymentFile, '--vram', '8']
    const shortKey = await start(noFile, { JOBMESH_PRIVATE_KEY: '0x1234' })
    expect(shortKey.code).toBe(2)
    expect(shortKey.stderr).toContain('the private key given (JOBMESH_PRIVATE_KEY or --private-key) is not 32 bytes of hex')
    expect(shortKey.stderr).not.toContain('a wallet key is needed')

    const partial = join(dir, 'partial.json')
    await writeFile(partial, JSON.stringify({ chainId: deployment.chainId, jobEscrow: deployment.jobEscrow }))
    const fields = await start([...chainArgs({ deployment: partial }), '--vram', '8'])
    expect(fields.code).toBe(2)
    expect(fields.stderr).toContain(`${partial} is not a jobmesh deployment file: nodeRegistry must be a 0x address`)

    // a stake the wallet cannot pay: refused before the seed commitment, which costs gas too
    const poor = await start([...chainArgs(), '--vram', '8', '--stake', '20000'])
    expect(poor.code).toBe(1)
    expect(poor.stderr).toMatch(new RegExp(`error: wallet ${anvil.accounts[1].address} has 10000\\.0 ETH, needs 20000\\.0 stake \\+ about 0\\.\\d+ ETH of gas at the chain's fee now`))
    expect(await registered()).toBe(false)
  }, 60_000)

  it('a deployment of another chain, or whose contracts are not there, or no JobEscrow at its escrow address: one line, no transaction dump', async () => {
    const other = join(dir, 'other.json')
    await writeFile(other, serializeDeployment({ ...deployment, chainId: 80002 }))
    const mismatch = await start([...chainArgs({ deployment: other }), '--vram', '8'])
    expect(mismatch.code).toBe(1)
    expect(mismatch.stderr).toContain(`error: the deployment is for chain 80002, the provider is on chain ${anvil.chainId}: --rpc and --deployment name different networks`)

    const empty = join(dir, 'empty.json')
    await writeFile(empty, serializeDeployment({ ...deployment, jobEscrow: anvil.accounts[0].address }))
    const missing = await start([...chainArgs({ deployment: empty }), '--vram', '8'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(`error: no JobEscrow contract answers at ${anvil.accounts[0].address} on chain ${anvil.chainId}: there is no contract at that address`)
    // an address with another contract (the registry's): not "could not decode result data" from the first read
    const swapped = join(dir, 'swapped.json')
    await writeFile(swapped, serializeDeployment({ ...deployment, jobEscrow: deployment.nodeRegistry }))
    const notEscrow = await start([...chainArgs({ deployment: swapped }), '--vram', '8'])
    expect(notEscrow.code).toBe(1)
    expect(notEscrow.stderr).toContain(`error: no JobEscrow contract answers at ${deployment.nodeRegistry} on chain ${anvil.chainId}: the contract there is not a JobEscrow`)
    expect(notEscrow.stderr).not.toContain('could not decode')
    // jobmesh claim reads the same deployment file the same way
    const claim = await jobmesh(['claim', '--rpc', anvil.rpcUrl, '--deployment', swapped, '--key-file', keyFile], {}, 30_000)
    expect(claim.code).toBe(1)
    expect(claim.stderr).toContain(`error: no JobEscrow contract answers at ${deployment.nodeRegistry} on chain ${anvil.chainId}: the contract there is not a JobEscrow`)
    for (const out of [mismatch, missing, notEscrow]) {
      expect(out.stderr.trim().split('\n').length).toBeLessThanOrEqual(2)
      expect(out.stderr).not.toMatch(/0x[0-9a-f]{200}/)
    }
    // refused for its chain flags: no data dir was made (a wrong escrow address made one before the refusal)
    expect(existsSync(join(dir, 'peer'))).toBe(false)
    expect(await registered()).toBe(false)
  }, 60_000)

  it('claim with a wallet that is no node (the DApp\'s key, say) says so, besides that nothing is to claim', async () => {
    const out = await jobmesh(['claim', '--rpc', anvil.rpcUrl, '--deployment', deploymentFile, '--key-file', keyFile], {}, 30_000)
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout).toContain(`nothing to claim for ${anvil.accounts[1].address} (recorded share 0.00, 0.00 now); it is not a registered node`)
    expect(await registered()).toBe(false)
  }, 60_000)
})
