import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Wallet } from 'ethers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { workerAnvil } from '@jobmesh/testkit/anvil'
import {
  connect,
  createProvider,
  deploy,
  DEFAULT_ESCROW_PARAMS,
  DEFAULT_REGISTRY_PARAMS,
  parseDeployment,
  probeChainId,
  registryOf,
  serializeDeployment,
  verifyDeployment
} from '../src/index.js'
import type { Anvil, EscrowNotFoundError } from '../src/index.js'
import type { JsonRpcProvider } from 'ethers'

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const script = path.join(pkgDir, 'scripts', 'deploy.mjs')
const built = existsSync(path.join(pkgDir, 'dist', 'index.js'))

/** A local port with nothing listening on it. */
async function deadPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

function runScript (env: Record<string, string>): Promise<{ code: number, stdout: string, stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err == null ? 0 : (typeof err.code === 'number' ? err.code : 1), stdout, stderr })
    })
  })
}

describe('deploy', () => {
  let anvil: Anvil
  let provider: JsonRpcProvider

  beforeEach(async () => {
    anvil = await workerAnvil({ accounts: 2 })
    provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId, pollingInterval: 50 })
  })

  afterEach(async () => {
    provider.destroy()
    await anvil.stop()
  })

  it('deploys with the defaults, wires, verifies and round-trips through JSON', async () => {
    const signer = new Wallet(anvil.accounts[0].privateKey, provider)
    const d = await deploy(signer, { escrow: { commitWindow: 7 } })
    expect(d.chainId).toBe(31337)
    expect(d.deployer).toBe(signer.address)
    expect(d.params.registry).toEqual(DEFAULT_REGISTRY_PARAMS)
    expect(d.params.escrow).toEqual({ ...DEFAULT_ESCROW_PARAMS, commitWindow: 7 })
    await verifyDeployment(d, provider)

    const { nodeRegistry, jobEscrow } = connect(d, provider)
    expect(await nodeRegistry.escrow()).toBe(d.jobEscrow)
    const onChain = await jobEscrow.params()
    expect(onChain.commitWindow).toBe(7n)
    expect((await nodeRegistry.params()).minStake).toBe(DEFAULT_REGISTRY_PARAMS.minStake)

    expect(parseDeployment(serializeDeployment(d))).toEqual(d)
    // a file that is not a deployment: a typed error naming what is wrong, never a TypeError from deep inside
    expect(() => parseDeployment('{"chainId":')).toThrow(expect.objectContaining({ name: 'InvalidDeploymentError' }))
    expect(() => parseDeployment('null')).toThrow('the file must be a JSON object')
    expect(() => parseDeployment(JSON.stringify({ chainId: 31337, jobEscrow: d.jobEscrow }))).toThrow('nodeRegistry must be a 0x address')
    const noParams = JSON.parse(serializeDeployment(d)) as Record<string, unknown>
    delete noParams.params
    expect(() => parseDeployment(JSON.stringify(noParams))).toThrow('params must be an object with registry and escrow')
    const badStake = JSON.parse(serializeDeployment(d)) as { params: { registry: { minStake: string } } }
    badStake.params.registry.minStake = 'ten'
    expect(() => parseDeployment(JSON.stringify(badStake))).toThrow('params.registry.minStake must be a whole number of wei')
    // the chain id comes from the node, not from a provider whose static network is the deployment's own claim
    const claimed = createProvider(anvil.rpcUrl, { chainId: 80002 })
    await expect(verifyDeployment({ ...d, chainId: 80002 }, claimed)).rejects.toMatchObject({ name: 'ChainMismatchError' })
    claimed.destroy()
    await expect(verifyDeployment({ ...d, chainId: 80002 }, provider)).rejects.toMatchObject({ name: 'ChainMismatchError' })
    await expect(verifyDeployment({ ...d, nodeRegistry: signer.address }, provider)).rejects.toMatchObject({ name: 'DeploymentFailedError' })
  })

  it('says no JobEscrow answers at a wrong escrow address: no contract there, or another contract (verifyDeployment, registryOf)', async () => {
    const signer = new Wallet(anvil.accounts[0].privateKey, provider)
    const d = await deploy(signer)
    expect(await registryOf(provider, d.jobEscrow)).toBe(d.nodeRegistry)
    const chain = anvil.chainId
    // an account (no code), the registry, and the incentive pool (which has a registry() of its own)
    for (const [address, reason] of [[signer.address, 'no-code'], [d.nodeRegistry, 'not-an-escrow'], [d.incentivePool!, 'not-an-escrow']] as const) {
      const message = `no JobEscrow contract answers at ${address} on chain ${chain}: ` +
        (reason === 'no-code' ? 'there is no contract at that address' : 'the contract there is not a JobEscrow')
      for (const check of [async () => verifyDeployment({ ...d, jobEscrow: address }, provider), async () => registryOf(provider, address)]) {
        const err = await check().then(() => new Error('accepted'), (e: unknown) => e as EscrowNotFoundError)
        expect(err.name, err.message).toBe('EscrowNotFoundError')
        expect(err).toMatchObject({ address, reason })
        expect(err.message).toMatch(new RegExp(`^${message.replace(/[()]/g, '\\$&')}`))
      }
    }
    // a JobEscrow of another deployment: it answers, but settles against another registry
    const other = await deploy(signer)
    await expect(verifyDeployment({ ...d, jobEscrow: other.jobEscrow }, provider)).rejects
      .toMatchObject({ name: 'DeploymentFailedError', message: expect.stringContaining('the deployment file mixes two deployments') })
  })

  it('reports a reverted deployment', async () => {
    const signer = new Wallet(anvil.accounts[0].privateKey, provider)
    // stakeCap = 0 makes the NodeRegistry constructor revert with InvalidParams
    await expect(deploy(signer, { registry: { stakeCap: 0n } })).rejects.toMatchObject({ name: 'DeploymentFailedError' })
  })

  it('reports an unreachable endpoint', async () => {
    const port = await deadPort()
    const url = `http://127.0.0.1:${port}`
    // one line that says what happened, not a timeout
    await expect(probeChainId(url, { timeout: 5_000 })).rejects.toMatchObject({
      name: 'RpcUnreachableError', message: `connection refused at 127.0.0.1:${port} (is the chain running? jobmesh devnet prints JOBMESH_RPC_URL)`
    })
    await expect(probeChainId('http://127.0.0.1:1', { timeout: 5_000 })).rejects.toMatchObject({ message: /^connection refused at 127\.0\.0\.1:1 / })
  })

  it('scripts/deploy.mjs writes deployments/<chainId>.json and explains bad setups', async () => {
    // the script runs the built package: a run without a build fails here, it is not skipped
    expect(built, 'packages/contracts/dist is missing: run npm run build first').toBe(true)
    const dir = mkdtempSync(path.join(tmpdir(), 'jobmesh-deploy-'))
    try {
      const ok = await runScript({
        JOBMESH_RPC_URL: anvil.rpcUrl,
        JOBMESH_PRIVATE_KEY: anvil.accounts[1].privateKey,
        JOBMESH_DEPLOYMENTS_DIR: dir,
        JOBMESH_DEPLOY_PARAMS: JSON.stringify({ registry: { minStake: '5' } })
      })
      expect(ok.stderr).toBe('')
      expect(ok.code).toBe(0)
      const d = parseDeployment(readFileSync(path.join(dir, '31337.json'), 'utf8'))
      expect(d.deployer).toBe(anvil.accounts[1].address)
      expect(d.params.registry.minStake).toBe(5n)
      await verifyDeployment(d, provider)

      // deployed again to the same chain: the file names contracts that live there (every peer and DApp points at
      // them), so nothing is sent and the file stays
      const written = readFileSync(path.join(dir, '31337.json'), 'utf8')
      const sent = await provider.getTransactionCount(anvil.accounts[1].address)
      const deployer = { JOBMESH_RPC_URL: anvil.rpcUrl, JOBMESH_PRIVATE_KEY: anvil.accounts[1].privateKey, JOBMESH_DEPLOYMENTS_DIR: dir }
      const again = await runScript(deployer)
      expect(again.code).toBe(1)
      expect(again.stderr).toContain(`31337.json names contracts that live on chain 31337 (NodeRegistry ${d.nodeRegistry}, JobEscrow ${d.jobEscrow})`)
      expect(again.stderr).toMatch(/Nothing was deployed\. Move the file away first, or set JOBMESH_DEPLOY_REPLACE=1/)
      expect(readFileSync(path.join(dir, '31337.json'), 'utf8')).toBe(written)
      expect(await provider.getTransactionCount(anvil.accounts[1].address)).toBe(sent)
      // replaced on purpose: the earlier file is kept beside the new one
      const replaced = await runScript({ ...deployer, JOBMESH_DEPLOY_REPLACE: '1' })
      expect(replaced.code, replaced.stderr).toBe(0)
      const kept = readdirSync(dir).filter(f => f.startsWith('31337.replaced-'))
      expect(kept).toHaveLength(1)
      expect(replaced.stdout).toContain(`the deployment it replaces is kept as ${path.relative(process.cwd(), path.join(dir, kept[0]))}`)
      expect(readFileSync(path.join(dir, kept[0]), 'utf8')).toBe(written)
      const second = parseDeployment(readFileSync(path.join(dir, '31337.json'), 'utf8'))
      expect(second.jobEscrow).not.toBe(d.jobEscrow)
      // a file whose contracts are gone from the chain (a local chain started afresh) is written over, nothing kept
      writeFileSync(path.join(dir, '31337.json'), serializeDeployment({ ...second, nodeRegistry: '0x' + '12'.repeat(20), jobEscrow: '0x' + '34'.repeat(20) }))
      const fresh = await runScript(deployer)
      expect(fresh.code, fresh.stderr).toBe(0)
      expect(readdirSync(dir).filter(f => f.startsWith('31337.replaced-'))).toHaveLength(1)
      expect(parseDeployment(readFileSync(path.join(dir, '31337.json'), 'utf8')).jobEscrow).not.toBe('0x' + '34'.repeat(20))

      const noKey = await runScript({ JOBMESH_RPC_URL: anvil.rpcUrl, JOBMESH_DEPLOYMENTS_DIR: dir })
      expect(noKey.code).toBe(1)
      expect(noKey.stderr).toMatch(/JOBMESH_PRIVATE_KEY is not set/)

      const down = await runScript({
        JOBMESH_RPC_URL: `http://127.0.0.1:${await deadPort()}`,
        JOBMESH_PRIVATE_KEY: anvil.accounts[1].privateKey,
        JOBMESH_DEPLOYMENTS_DIR: dir
      })
      expect(down.code).toBe(1)
      expect(down.stderr).toMatch(/RpcUnreachableError/)

      const broke = await runScript({
        JOBMESH_RPC_URL: anvil.rpcUrl,
        JOBMESH_PRIVATE_KEY: '0x' + '11'.repeat(32),
        JOBMESH_DEPLOYMENTS_DIR: dir
      })
      expect(broke.code).toBe(1)
      expect(broke.stderr).toMatch(/has no funds/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
