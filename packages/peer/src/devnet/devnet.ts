import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { logger } from '@libp2p/logger'
import { createProvider, deploy, rpcCall, serializeDeployment, startAnvil } from '@jobmesh/contracts'
import { Wallet } from 'ethers'
import { DAPP_ACCOUNT, DEFAULT_DEVNET_BLOCK_TIME, DEFAULT_DEVNET_PEERS, DEFAULT_DEVNET_STAKE, DEFAULT_DEVNET_VRAM_GB } from './constants.js'
import { TooManyPeersError } from './errors.js'
import { spawnPeer } from './peer-process.js'
import type { PeerProcess } from './peer-process.js'
import type { Anvil, AnvilAccount, DeployInit, Deployment } from '@jobmesh/contracts'

const log = logger('jobmesh:devnet')

export interface DevnetPeerOptions {
  gpuModel?: string
  vramGb?: number
  /**
   * A program to run instead of the `jobmesh` CLI (e.g. a test peer built around `startCommand`), with arguments
   * before `start`; it must behave as `jobmesh start` does.
   */
  entry?: { path: string, args?: string[] }
  /** Process jobs (default true); false runs `jobmesh start --no-process`: a peer that verifies but does not process. */
  process?: boolean
  /** Serve the dashboard and `/metrics` on 127.0.0.1 (a free port); default: the devnet's `http`. */
  http?: boolean
  /** `--takeover-grace`: seconds before this peer takes over a job completed elsewhere and not submitted. */
  takeoverGraceSeconds?: number
  /** `--commit-timeout`: the node's timeout setting, percent of a commit window (25..100). */
  commitTimeoutPct?: number
  /** `--holder-grace`: seconds this peer leaves a job naming a model it does not hold to the model's holders. */
  holderGraceSeconds?: number
  /** `--model`: models this peer keeps at hand (fetched, pinned and announced on chain at start). */
  models?: string[]
}

export interface DevnetInit {
  /** Number of peers (default 4). */
  peers?: number
  /** Chain id (default anvil's 31337; 80002 behaves like Polygon Amoy). */
  chainId?: number
  /** Seconds per block (default {@link DEFAULT_DEVNET_BLOCK_TIME}). */
  blockTime?: number
  /** Where peers keep their data dirs, keys and the deployment file, kept after `stop` (default: a new temp dir, removed by `stop`). */
  dir?: string
  /** Stake per peer in ETH (default 1). */
  stake?: string
  /** Per-peer options, by index. */
  peer?: (index: number) => DevnetPeerOptions
  /** Contract parameter overrides (e.g. short commit/reveal windows). */
  contracts?: Omit<DeployInit, 'signal'>
  /** Every peer serves the dashboard and `/metrics` on 127.0.0.1 (free ports). Default false. */
  http?: boolean
  /** Reports progress: "chain", "contracts", "peer 1/4", ... */
  onProgress?: (stage: string) => void
  signal?: AbortSignal
}

/** A running local network: anvil, the contracts and N `jobmesh start` processes. */
export interface Devnet {
  /** Its data: the `dir` given, or a temp dir that `stop` removes. */
  readonly dir: string
  readonly anvil: Anvil
  readonly deployment: Deployment
  readonly deploymentFile: string
  readonly peers: PeerProcess[]
  /** Multiaddrs to bootstrap from (the first peer's). */
  readonly bootstrap: string[]
  /** A funded account for the DApp (anvil account 0, the deployer). */
  readonly dapp: AnvilAccount
  /**
   * The escrow's treasury (slashed stakes, swept claims, forfeits): the chain's last account, which nobody else uses,
   * so what the DApp and the peers hold after a job is what the job moved between them, not the penalties.
   */
  readonly treasury: string
  /** Wallet account of peer `i`. */
  peerAccount(i: number): AnvilAccount
  /** Starts one more peer (e.g. to replace a killed one). */
  addPeer(options?: DevnetPeerOptions): Promise<PeerProcess>
  /**
   * Starts peer `i` again on its data dir (same PeerId, wallet and options) after it stopped or was killed; it
   * replaces `peers[i]`. It listens on its TCP port of before, as an operator's peer with a fixed `--listen` does, so
   * the peers and DApp clients that knew it find it again (on another port if that one was taken meanwhile).
   */
  restartPeer(i: number): Promise<PeerProcess>
  /** Stops every peer, then the chain. */
  stop(): Promise<void>
}

/**
 * Starts a whole jobmesh network on this machine: an anvil chain, the contracts, and `peers` real `jobmesh start`
 * processes on loopback, each with its own funded wallet, registered on chain, the first one the bootstrap of the rest.
 */
export async function startDevnet (init: DevnetInit = {}): Promise<Devnet> {
  const count = init.peers ?? DEFAULT_DEVNET_PEERS
  const progress = init.onProgress ?? (() => {})
  const dir = init.dir ?? await mkdtemp(join(tmpdir(), 'jobmesh-devnet-'))
  // a temp dir made here holds the data of a chain that stops with the devnet (anvil keeps its state in memory):
  // `stop` removes it (each run left ~50 MB in the temp folder); a dir given is kept
  const removeDir = async (): Promise<void> => { if (init.dir == null) await rm(dir, { recursive: true, force: true }).catch(() => {}) }
  await mkdir(dir, { recursive: true })
  progress('chain')
  const blockTime = init.blockTime ?? DEFAULT_DEVNET_BLOCK_TIME
  // the chain mines a block per transaction while the contracts deploy and the peers register (a block each, not a
  // block time each: 15 s less per devnet start), then a block every `blockTime` seconds; anvil switches to whole
  // seconds only (evm_setIntervalMining), so another block time is kept from the start
  const switchToInterval = Number.isInteger(blockTime) && blockTime > 0
  const anvil = await startAnvil({ chainId: init.chainId, blockTime: switchToInterval ? undefined : blockTime, accounts: Math.max(10, count + 5), signal: init.signal })
    .catch(async (err: unknown) => { await removeDir(); throw err })
  const peers: PeerProcess[] = []
  // the deployer's provider is destroyed when the devnet stops, not at once: ethers may still have a receipt poll of
  // the last deployment transaction queued, and destroying the provider rejects it where nobody can catch it
  const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId, pollingInterval: 100 })
  const stop = async (): Promise<void> => {
    await Promise.allSettled(peers.filter(p => p != null).map(async p => { await p.stop() }))
    provider.destroy()
    await anvil.stop()
    await removeDir()
  }
  try {
    if (count + 1 > anvil.accounts.length) {
      throw new TooManyPeersError(`${count} peers need ${count + 1} funded accounts, the chain has ${anvil.accounts.length}`)
    }
    progress('contracts')
    const deployer = new Wallet(anvil.accounts[DAPP_ACCOUNT].privateKey, provider)
    // the escrow turns a sample's re-run seconds into commit-window blocks with its block time: this chain's
    const escrow = { secondsPerBlock: Math.max(1, Math.ceil(blockTime)), ...init.contracts?.escrow }
    const treasury = anvil.accounts[anvil.accounts.length - 1].address
    const deployment = await deploy(deployer, { ...init.contracts, escrow: { treasury, ...escrow }, signal: init.signal })
    const deploymentFile = join(dir, `deployment-${deployment.chainId}.json`)
    await writeFile(deploymentFile, serializeDeployment(deployment))
    const bootstrap: string[] = []
    let nextIndex = 0
    const optionsOf: DevnetPeerOptions[] = []
    const addPeer = async (options: DevnetPeerOptions = {}): Promise<PeerProcess> => {
      const index = nextIndex++
      const account = anvil.accounts[index + 1]
      if (account == null) {
        throw new TooManyPeersError(`no funded account left for peer ${index}`)
      }
      optionsOf[index] = options
      const peer = await startPeer({ dir, index, account, bootstrap, rpcUrl: anvil.rpcUrl, deploymentFile, stake: init.stake, options: { http: init.http, ...options }, signal: init.signal })
      peers[index] = peer
      if (bootstrap.length === 0) {
        bootstrap.push(...peer.addresses.filter(a => !a.includes('/ws')).map(a => a.includes('/p2p/') ? a : `${a}/p2p/${peer.peerId}`))
      }
      return peer
    }
    // the first peer is everyone's bootstrap; the others start side by side
    progress(`peer 1/${count}`)
    await addPeer(init.peer?.(0))
    progress(`peers 2-${count}/${count}`)
    const started = await Promise.allSettled(Array.from({ length: count - 1 }, async (_, i) => await addPeer(init.peer?.(i + 1))))
    const failed = started.find(r => r.status === 'rejected')
    if (failed != null) {
      throw failed.reason
    }
    if (switchToInterval) await rpcCall(anvil.rpcUrl, 'evm_setIntervalMining', [blockTime], { signal: init.signal })
    log('devnet up: %d peers, chain %d at %s', count, anvil.chainId, anvil.rpcUrl)
    return {
      dir,
      anvil,
      deployment,
      deploymentFile,
      peers,
      bootstrap,
      dapp: anvil.accounts[DAPP_ACCOUNT],
      treasury,
      peerAccount: i => anvil.accounts[i + 1],
      addPeer,
      restartPeer: async (i) => {
        const old = peers[i]
        if (old == null) throw new TooManyPeersError(`no peer ${i}`)
        await old.stop()
        // it joins through the peers that are running; on its old port, the others' and the clients' redials reach it
        // (a client that knew only restarted peers, all on new ports, was left connected to nobody)
        const running = peers.filter((p, j) => j !== i && p != null && p.child.exitCode == null && p.child.signalCode == null)
        const through = running.flatMap(p => p.addresses.filter(a => !a.includes('/ws')).map(a => a.includes('/p2p/') ? a : `${a}/p2p/${p.peerId}`))
        const start = async (listen: string): Promise<PeerProcess> => await startPeer({
          dir, index: i, account: anvil.accounts[i + 1], bootstrap: through, rpcUrl: anvil.rpcUrl, listen,
          deploymentFile, stake: init.stake, options: { http: init.http, ...optionsOf[i] }, signal: init.signal
        })
        const before = tcpListenAddress(old.addresses)
        const peer = before === undefined
          ? await start(ANY_TCP_PORT)
          : await start(before).catch(async (err: unknown) => {
            if (init.signal?.aborted === true) throw err
            log('peer %d could not listen on %s again, taking a new port: %e', i, before, err)
            return await start(ANY_TCP_PORT)
          })
        peers[i] = peer
        return peer
      },
      stop
    }
  } catch (err) {
    await stop()
    throw err
  }
}

/** A TCP listen address on a port the system picks. */
const ANY_TCP_PORT = '/ip4/127.0.0.1/tcp/0'

/** The plain TCP address a peer listened on (without its `/p2p/` part), if it had one. */
function tcpListenAddress (addresses: readonly string[]): string | undefined {
  const tcp = addresses.find(a => /^\/ip4\/[^/]+\/tcp\/[1-9][0-9]*(\/p2p\/[^/]+)?$/.test(a))
  return tcp?.replace(/\/p2p\/[^/]+$/, '')
}

interface StartPeerInit {
  dir: string
  /** The TCP listen address (default: any port on loopback). */
  listen?: string
  index: number
  account: AnvilAccount
  bootstrap: string[]
  rpcUrl: string
  deploymentFile: string
  stake?: string
  options: DevnetPeerOptions
  signal?: AbortSignal
}

async function startPeer (init: StartPeerInit): Promise<PeerProcess> {
  const dataDir = join(init.dir, `peer-${init.index}`)
  await mkdir(dataDir, { recursive: true })
  const keyFile = join(dataDir, 'wallet.key')
  await writeFile(keyFile, init.account.privateKey + '\n', { mode: 0o600 })
  const args = [
    '--listen', init.listen ?? ANY_TCP_PORT,
    '--rpc', init.rpcUrl,
    '--key-file', keyFile,
    '--deployment', init.deploymentFile,
    '--stake', init.stake ?? DEFAULT_DEVNET_STAKE,
    '--vram', String(init.options.vramGb ?? DEFAULT_DEVNET_VRAM_GB)
  ]
  for (const b of init.bootstrap) args.push('--bootstrap', b)
  if (init.options.gpuModel != null) args.push('--gpu-model', init.options.gpuModel)
  if (init.options.process === false) args.push('--no-process')
  if (init.options.http === true) args.push('--http', '127.0.0.1:0')
  if (init.options.takeoverGraceSeconds != null) args.push('--takeover-grace', String(init.options.takeoverGraceSeconds))
  if (init.options.commitTimeoutPct != null) args.push('--commit-timeout', String(init.options.commitTimeoutPct))
  for (const m of init.options.models ?? []) args.push('--model', m)
  if (init.options.holderGraceSeconds != null) args.push('--holder-grace', String(init.options.holderGraceSeconds))
  return await spawnPeer({ name: `peer-${init.index}`, dataDir, args, entry: init.options.entry, signal: init.signal })
}
