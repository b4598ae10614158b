#!/usr/bin/env node
// Deploys NodeRegistry + JobEscrow (and wires them) to an RPC endpoint and writes deployments/<chainId>.json.
//
//   JOBMESH_PRIVATE_KEY=0x... [JOBMESH_RPC_URL=http://127.0.0.1:8545] npm run deploy -w @jobmesh/contracts
//
// Environment:
//   JOBMESH_RPC_URL          JSON-RPC endpoint (default http://127.0.0.1:8545; Polygon Amoy: e.g.
//                            https://rpc-amoy.polygon.technology, chain id 80002)
//   JOBMESH_PRIVATE_KEY      deployer key, 0x-prefixed 32-byte hex (required; never committed)
//   JOBMESH_DEPLOY_PARAMS    optional JSON overriding the defaults, e.g.
//                            '{"registry":{"minStake":"1000000000000000000"},"escrow":{"commitWindow":40}}'
//   JOBMESH_CONFIRMATIONS    confirmations per transaction (default 1)
//   JOBMESH_DEPLOYMENTS_DIR  where to write <chainId>.json (default packages/contracts/deployments)
//   JOBMESH_DEPLOY_REPLACE   1: deploy even when <chainId>.json names contracts that live on the chain (the file
//                            is kept as <chainId>.replaced-<time>.json); without it such a deploy is refused: every
//                            peer and DApp of that network points at those contracts
// Needs the built package (npm run build -w @jobmesh/contracts).
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function fail (message) {
  process.stderr.write(`deploy: ${message}\n`)
  process.exit(1)
}

let lib
try {
  lib = await import(new URL('../dist/index.js', import.meta.url).href)
} catch (err) {
  fail(`cannot load the built package (run \`npm run build -w @jobmesh/contracts\` first): ${err.message}`)
}
const { Wallet, formatEther } = await import('ethers')
const {
  AMOY_CHAIN_ID, DEFAULT_RPC_URL, createProvider, deploy, parseDeployment, probeChainId, resolveDeployParams, serializeDeployment
} = lib

const rpcUrl = process.env.JOBMESH_RPC_URL || DEFAULT_RPC_URL
const key = process.env.JOBMESH_PRIVATE_KEY
if (key == null || key === '') fail('JOBMESH_PRIVATE_KEY is not set (the deployer\'s private key, 0x + 64 hex digits)')
if (!/^(0x)?[0-9a-fA-F]{64}$/.test(key)) fail('JOBMESH_PRIVATE_KEY is not a private key (expected 0x + 64 hex digits)')

let overrides = {}
if (process.env.JOBMESH_DEPLOY_PARAMS) {
  try {
    overrides = JSON.parse(process.env.JOBMESH_DEPLOY_PARAMS)
  } catch (err) {
    fail(`JOBMESH_DEPLOY_PARAMS is not valid JSON: ${err.message}`)
  }
  for (const [section, field] of [['registry', 'minStake'], ['registry', 'stakeCap'], ['escrow', 'minFee']]) {
    if (overrides[section]?.[field] != null) overrides[section][field] = BigInt(overrides[section][field])
  }
}
const confirmations = Number(process.env.JOBMESH_CONFIRMATIONS ?? 1)
const outDir = path.resolve(process.env.JOBMESH_DEPLOYMENTS_DIR || path.join(pkgDir, 'deployments'))

/**
 * Whether `file`, an earlier deployment to this chain, is replaced: refused (exit 1) when its contracts live on the
 * chain, unless JOBMESH_DEPLOY_REPLACE=1 (then the path it is kept at is returned); a file whose contracts are gone
 * (a local chain started afresh) or that is not a deployment is overwritten.
 */
async function replacing (file, provider) {
  if (!fs.existsSync(file)) return undefined
  let earlier
  try {
    earlier = parseDeployment(fs.readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
  const codes = await Promise.all([earlier.nodeRegistry, earlier.jobEscrow].map(async a => await provider.getCode(a)))
  if (codes.every(c => c === '0x')) return undefined
  const rel = path.relative(process.cwd(), file)
  if (process.env.JOBMESH_DEPLOY_REPLACE !== '1') {
    fail(`${rel} names contracts that live on chain ${earlier.chainId} (NodeRegistry ${earlier.nodeRegistry}, JobEscrow ` +
      `${earlier.jobEscrow}): every peer and DApp of that network points at them, and a new deployment would be written over it. ` +
      'Nothing was deployed. Move the file away first, or set JOBMESH_DEPLOY_REPLACE=1 (the file is then kept beside the new one)')
  }
  return file.replace(/\.json$/, `.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
}

try {
  const chainId = await probeChainId(rpcUrl)
  const provider = createProvider(rpcUrl, { chainId, pollingInterval: chainId === AMOY_CHAIN_ID ? 2000 : 250 })
  const signer = new Wallet(key.startsWith('0x') ? key : `0x${key}`, provider)
  const balance = await provider.getBalance(signer.address)
  if (balance === 0n) {
    fail(`the deployer ${signer.address} has no funds on chain ${chainId}${chainId === AMOY_CHAIN_ID ? ' (get test POL from an Amoy faucet)' : ''}`)
  }
  const params = resolveDeployParams(overrides)
  const file = path.join(outDir, `${chainId}.json`)
  const replaced = await replacing(file, provider)
  process.stdout.write(`deploy: chain ${chainId} at ${rpcUrl}, deployer ${signer.address} (${formatEther(balance)} native)\n`)
  const deployment = await deploy(signer, { ...params, confirmations })
  fs.mkdirSync(outDir, { recursive: true })
  if (replaced !== undefined) {
    fs.renameSync(file, replaced)
    process.stdout.write(`deploy: the deployment it replaces is kept as ${path.relative(process.cwd(), replaced)}\n`)
  }
  fs.writeFileSync(file, serializeDeployment(deployment))
  process.stdout.write(`deploy: NodeRegistry ${deployment.nodeRegistry}\ndeploy: JobEscrow    ${deployment.jobEscrow}\n`)
  process.stdout.write(`deploy: wrote ${path.relative(process.cwd(), file)}\n`)
  provider.destroy()
} catch (err) {
  fail(`${err.name ?? 'Error'}: ${err.message}`)
}
