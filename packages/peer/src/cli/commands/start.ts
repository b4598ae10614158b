import { mkdir, readFile } from 'node:fs/promises'
import { Option } from 'commander'
import { startControlServer } from '../control.js'
import { UsageError } from '../errors.js'
import { untilSignal } from '../signals.js'
import { collectModel, collectMultiaddr, httpAddress, positiveInteger, positiveNumber, resolveDataDir } from '../options.js'
import { printPeerEvents } from '../operator-lines.js'
import type { HttpAddress } from '../../http/index.js'
import type { PeerChainInit, PeerInit } from '../../peer.js'
import type { Deployment } from '@jobmesh/contracts'
import type { Command } from 'commander'

export interface StartOptions {
  dataDir?: string
  listen?: string[]
  bootstrap?: string[]
  gpuModel?: string
  vram: number
  model?: string[]
  mdns?: boolean
  process: boolean
  rpc?: string
  keyFile?: string
  deployment?: string
  privateKey?: string
  replicas: number
  takeoverGrace: number
  stake: string
  exitWithParent?: boolean
  http?: HttpAddress
}

/** What a program built around `jobmesh start` may set beyond its options (a test peer's executor). */
export type StartOverrides = Pick<PeerInit, 'executor'>

/** `jobmesh start`: runs a peer until SIGINT/SIGTERM. */
export function startCommand (program: Command, overrides: StartOverrides = {}): void {
  program.command('start')
    .description('start a peer: join the network, process and verify jobs, earn fees (runs until Ctrl-C)')
    .option('-d, --data-dir <dir>', 'where identity, CRDT and blocks live (env JOBMESH_DATA_DIR, default ~/.jobmesh)')
    .option('-l, --listen <multiaddr>', 'listen address, repeatable (default /ip4/0.0.0.0/tcp/0 and .../ws)', collectMultiaddr)
    .addOption(new Option('-b, --bootstrap <multiaddr>', 'peer to join through, with /p2p/<peerId>; repeatable (variable: comma-separated)')
      .env('JOBMESH_BOOTSTRAP').argParser(collectMultiaddr))
    .option('--gpu-model <name>', 'GPU model this node offers (omit for CPU-only: "Any" jobs)')
    .option('--vram <GB>', 'VRAM in GB', positiveNumber, 0)
    .option('--model <id>', 'a model this node keeps at hand (a job\'s modelId, e.g. ipfs://<cid>: fetched and pinned at start); jobs naming it are chosen first; repeatable', collectModel)
    .option('--mdns', 'also discover peers on the LAN with mDNS')
    .option('--no-process', 'do not process jobs (relay, store and sync only)')
    .addOption(new Option('--rpc <url>', 'JSON-RPC URL of the chain; enables settlement').env('JOBMESH_RPC_URL'))
    .option('--key-file <file>', 'file holding the wallet private key (hex) (or JOBMESH_PRIVATE_KEY)')
    .addOption(new Option('--private-key <hex>', 'the wallet key; prefer the variable or --key-file').env('JOBMESH_PRIVATE_KEY').hideHelp())
    .addOption(new Option('--deployment <file>', 'deployments/<chainId>.json with the contract addresses').env('JOBMESH_DEPLOYMENT'))
    .option('--takeover-grace <s>', 'finalize a job completed by another peer that is still not submitted after this many seconds', positiveInteger, 120)
    .option('--replicas <r>', 'peers besides its producer that must hold each output before this peer submits a job', positiveInteger, 3)
    .option('--stake <eth>', 'stake to register with on first start', '0.1')
    .option('--http <host:port>', 'serve the dashboard and /metrics here, e.g. 127.0.0.1:8080 (off by default; keep it on loopback)', httpAddress)
    .addOption(new Option('--exit-with-parent', 'stop when standard input closes (devnet children)').hideHelp())
    .action(async (opts: StartOptions) => {
      const init = { ...await peerInit(opts), ...overrides }
      process.stdout.write('starting jobmesh peer...\n')
      // loaded here, not at the top: every other command (status above all) starts without libp2p, helia and ethers
      const { createPeer } = await import('../../peer.js')
      const peer = await createPeer(init)
      const stopLines = printPeerEvents(peer.events)
      const control = await startControlServer(init.dataDir ?? '', async () => await peer.report({ signal: AbortSignal.timeout(4_000) }).catch(() => peer.status())).catch(async err => {
        await peer.stop()
        throw err
      })
      const s = peer.status()
      process.stdout.write(`peer id   ${s.peerId}\n`)
      for (const a of s.addresses) {
        process.stdout.write(`listening ${a}\n`)
      }
      if (s.chain != null) {
        process.stdout.write(`wallet    ${s.chain.address} (registered)\n`)
      }
      if (peer.http != null) {
        process.stdout.write(`dashboard ${peer.http.url}\n`)
        process.stdout.write(`metrics   ${peer.http.url}metrics\n`)
      }
      process.stdout.write('ready (Ctrl-C to stop)\n')
      await untilSignal(opts.exitWithParent === true)
      process.stdout.write('stopping...\n')
      stopLines()
      await control.close()
      await peer.stop()
      process.stdout.write('stopped\n')
    })
}

async function peerInit (opts: StartOptions): Promise<PeerInit & { dataDir: string }> {
  const dataDir = resolveDataDir(opts.dataDir)
  await mkdir(dataDir, { recursive: true })
  return {
    dataDir,
    listen: opts.listen ?? ['/ip4/0.0.0.0/tcp/0', '/ip4/0.0.0.0/tcp/0/ws'],
    bootstrap: opts.bootstrap ?? [],
    outputReplicas: opts.replicas,
    mdns: opts.mdns === true,
    gpuModel: opts.gpuModel,
    vramGb: opts.vram,
    models: opts.model ?? [],
    process: opts.process,
    chain: await chainInit(opts),
    http: opts.http
  }
}

async function chainInit (opts: StartOptions): Promise<PeerChainInit | undefined> {
  const rpcUrl = opts.rpc === '' ? undefined : opts.rpc
  if (rpcUrl == null) {
    if (opts.keyFile != null || opts.deployment != null) {
      throw new UsageError('--key-file and --deployment need --rpc (or JOBMESH_RPC_URL)')
    }
    return undefined
  }
  if (opts.deployment == null || opts.deployment === '') {
    throw new UsageError('--rpc needs --deployment <file> (deployments/<chainId>.json)')
  }
  const privateKey = opts.keyFile != null ? (await readText(opts.keyFile, 'key file')).trim() : opts.privateKey
  if (privateKey == null || !/^(0x)?[0-9a-fA-F]{64}$/.test(privateKey)) {
    throw new UsageError('a wallet key is needed: --key-file <file> with a 32-byte hex key, or JOBMESH_PRIVATE_KEY')
  }
  const { parseEther } = await import('ethers')
  const { parseDeployment } = await import('@jobmesh/contracts')
  let stake: bigint
  try {
    stake = parseEther(opts.stake)
  } catch {
    throw new UsageError(`--stake: "${opts.stake}" is not an amount of ETH`)
  }
  let deployment: Deployment
  try {
    deployment = parseDeployment(await readText(opts.deployment, 'deployment file'))
  } catch (err) {
    throw new UsageError(`${opts.deployment} is not a jobmesh deployment file: ${(err as Error).message}`)
  }
  return {
    rpcUrl, privateKey: privateKey.startsWith('0x') ? privateKey : `0x${privateKey}`, deployment, stake,
    settlement: { takeoverGraceMs: opts.takeoverGrace * 1000 }
  }
}

async function readText (file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8')
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${file}: ${(err as Error).message}`)
  }
}
