import { timeoutSignal } from '@jobmesh/contracts'
import { mkdir } from 'node:fs/promises'
import { constants } from 'node:os'
import { Option } from 'commander'
import { refuseRunningPeer, startControlServer, startingReport } from '../control.js'
import type { StatusProvider } from '../control.js'
import { DEFAULT_STAKE_ETH } from '../constants.js'
import { InterruptedError, UsageError } from '../errors.js'
import { onSignal, untilSignal, watchInterrupt } from '../signals.js'
import {
  byteSize, checkDirectory, collectListenAddr, collectModel, collectMultiaddr, commitTimeoutPercent, dataDirLabel, ethAmount, httpAddress, nonNegativeNumber,
  positiveInteger, resolveDataDir, wholeNumber
} from '../options.js'
import { dutyLines, printPeerEvents } from '../operator-lines.js'
import { checkDeployment } from '../wallet-chain.js'
import { addWalletOptions, readWallet } from '../wallet-options.js'
import type { WalletOptions } from '../wallet-options.js'
import type { HttpAddress } from '../../http/index.js'
import type { PeerChainInit, PeerInit } from '../../peer.js'
import type { Command } from 'commander'

export interface StartOptions extends WalletOptions {
  dataDir?: string
  listen?: string[]
  bootstrap?: string[]
  gpuModel?: string
  vram: number
  model?: string[]
  mdns?: boolean
  process: boolean
  replicas: number
  takeoverGrace: number
  holderGrace?: number
  maxJobOutput?: number
  stake?: string
  commitTimeout?: number
  exitWithParent?: boolean
  http?: HttpAddress
}

/** What a program built around `jobmesh start` may set beyond its options (a test peer's executor). */
export type StartOverrides = Pick<PeerInit, 'executor'>

/** `jobmesh start`: runs a peer until SIGINT/SIGTERM. */
export function startCommand (program: Command, overrides: StartOverrides = {}): void {
  const cmd = program.command('start')
    .description('start a peer: join the network, process and verify jobs, earn fees (runs until Ctrl-C)')
    .option('-d, --data-dir <dir>', 'where identity, CRDT and blocks live (env JOBMESH_DATA_DIR, default ~/.jobmesh)')
    .option('-l, --listen <multiaddr>', 'listen address, repeatable (default /ip4/0.0.0.0/tcp/0 and .../ws)', collectListenAddr)
    .addOption(new Option('-b, --bootstrap <multiaddr>', 'peer to join through, with /p2p/<peerId>; repeatable (variable: comma-separated)')
      .env('JOBMESH_BOOTSTRAP').argParser(collectMultiaddr))
    .option('--gpu-model <name>', 'GPU model this node offers (omit for CPU-only: "Any" jobs)')
    .option('--vram <GB>', 'VRAM in whole GB; jobs needing more are not picked (at least 1 to register on a chain)', wholeNumber, 0)
    .option('--model <id>', 'a model this node keeps at hand (a job\'s modelId, e.g. ipfs://<cid>: fetched and pinned at start); jobs naming it are chosen first; repeatable', collectModel)
    .option('--holder-grace <s>', 'leave a job naming a model this node does not hold to the model\'s holders (on chain) for this many seconds first (default 3)', nonNegativeNumber)
    .option('--mdns', 'also discover peers on the LAN with mDNS')
    .option('--no-process', 'do not process jobs (relay, store, sync and verify only)')
  addWalletOptions(cmd, 'JSON-RPC URL of the chain; enables settlement')
  cmd
    .option('--takeover-grace <s>', 'finalize a job completed by another peer that is still not submitted after this many seconds', positiveInteger, 120)
    .option('--replicas <r>', 'peers besides its producer that must hold each output before this peer submits a job', positiveInteger, 3)
    .option('--max-job-output <size>', 'leave alone jobs whose outputs may come to more than this (MicroJobs x the job\'s bound per MicroJob, 64 MiB if it declares none), e.g. 20GiB: the peer that finalizes a job holds every output (default: no bound)', byteSize)
    .option('--stake <eth>', `stake to register with on first start, and to top the node up to at a start when its stake is below it (default ${DEFAULT_STAKE_ETH})`, ethAmount)
    .option('--commit-timeout <percent>', 'commit verifications within this percent of a round\'s commit window (25-100); shorter scores a better P and needs more stake (the registry\'s minimum x 100 / percent)', commitTimeoutPercent)
    .option('--http <host:port>', 'serve the dashboard and /metrics here, e.g. 127.0.0.1:8080 (off by default; keep it on loopback)', httpAddress)
    .addOption(new Option('--exit-with-parent', 'stop when standard input closes (devnet children)').hideHelp())
    .action(async (opts: StartOptions) => {
      // a Ctrl-C before `ready` stops what was started, says so and exits 130 (a second one ends it at once)
      const interrupt = watchInterrupt()
      // what was started, stopped in reverse order (at Ctrl-C after `ready`, or on a failure or Ctrl-C before it)
      const started: Array<() => Promise<void>> = []
      const stopStarted = async (): Promise<void> => {
        for (const stop of started.reverse()) await stop()
      }
      const interrupted = (): void => {
        if (interrupt.received !== undefined) throw new InterruptedError('interrupted before the peer was ready: stopped', interrupt.received)
      }
      try {
        // a peer running there is said as such at once, before the chain is asked anything
        await refuseRunningPeer(resolveDataDir(opts.dataDir))
        const init = { ...await peerInit(opts, interrupt.signal), ...overrides }
        // a peer already running there: said as such, before this start opens (and fails to lock) its stores; until
        // the peer is made (chain, stores, network: seconds) `jobmesh status` hears that it is starting
        const since = Date.now()
        let report: StatusProvider = () => startingReport(since)
        const control = await startControlServer(init.dataDir, () => report())
        started.push(async () => { await control.close() })
        interrupted()
        process.stdout.write('starting jobmesh peer...\n')
        // loaded here, not at the top: every other command and `--help` start without libp2p, helia and ethers
        const [{ createPeer }, { walletLine }] = await Promise.all([import('../../peer.js'), import('../status-view.js')])
        interrupted()
        // a Ctrl-C while it starts cuts the start short (a transaction already sent stays sent): what started stops
        const peer = await createPeer({ ...init, signal: interrupt.signal })
        // the lines go on while the peer stops (the stack stops in reverse): a stop that could not leave the draw says so
        const stopLines = printPeerEvents(peer.events)
        started.push(async () => { stopLines() })
        started.push(async () => { await peer.stop() })
        // before the stop closes the journal: the settlement duties this stop keeps, and what a long stop costs
        started.push(async () => {
          const duties = await peer.settlement?.duties().catch(() => []) ?? []
          for (const line of dutyLines(duties)) process.stdout.write(`${line}\n`)
        })
        interrupted()
        report = async () => await peer.report({ signal: timeoutSignal(4_000) })
        // a stopping peer no longer answers (its stores close under it)
        started.push(async () => { await control.close() })
        const s = peer.status()
        process.stdout.write(`peer id   ${s.peerId}\n`)
        for (const a of s.addresses) {
          process.stdout.write(`listening ${a}\n`)
        }
        if (s.chain != null) {
          process.stdout.write(`${walletLine(s.chain.address, peer.registration)}\n`)
        }
        if (peer.http != null) {
          process.stdout.write(`dashboard ${peer.http.url}\n`)
          process.stdout.write(`metrics   ${peer.http.url}metrics\n`)
        }
      } catch (err) {
        await stopStarted()
        interrupted()
        throw err
      } finally {
        interrupt.off()
      }
      process.stdout.write('ready (Ctrl-C to stop)\n')
      await untilSignal(opts.exitWithParent === true)
      process.stdout.write('stopping...\n')
      // a second Ctrl-C ends the process at once: said, since the stop may not have left the verifier draw yet (not
      // under a devnet, whose Ctrl-C reaches its children from the terminal and then as its own SIGTERM)
      const cutShort = opts.exitWithParent === true ? () => {} : onSignal(signal => {
        process.stderr.write('stopped at once (a second signal): the stop was cut short; if it had not yet taken this node out of the verifier ' +
          'draw, the node stays in it while down (drawn, it misses its seed and is slashed the bond): start it again soon\n')
        process.exit(128 + constants.signals[signal])
      })
      await stopStarted()
      cutShort()
      process.stdout.write('stopped\n')
    })
}

/**
 * The peer `jobmesh start` builds from its options (the data dir created).
 *
 * @throws UsageError for a data dir that is a file, and for options the chain refuses (before any transaction)
 */
export async function peerInit (opts: StartOptions, signal?: AbortSignal): Promise<PeerInit & { dataDir: string }> {
  const dataDir = resolveDataDir(opts.dataDir)
  await checkDirectory(dataDir, dataDirLabel(opts.dataDir))
  // the node folder is loaded by the start that follows anyway
  const { LAN_LISTEN, parseBootstrap } = await import('../../node/index.js')
  // each bootstrap address names its peer (InvalidMultiaddrError, a usage error); then the wallet, deployment and
  // stake, and the chain answering with the deployment's chain id and contracts: a start refused for any of them
  // makes no data dir
  const bootstrap = parseBootstrap(opts.bootstrap ?? [])
  const models = await checkModels(opts.model ?? [])
  const chain = await chainInit(opts)
  if (chain != null) await checkDeployment(chain, signal)
  await mkdir(dataDir, { recursive: true })
  return {
    dataDir,
    listen: opts.listen ?? [...LAN_LISTEN],
    bootstrap,
    outputReplicas: opts.replicas,
    mdns: opts.mdns === true,
    gpuModel: opts.gpuModel,
    vramGb: opts.vram,
    models,
    ...(opts.holderGrace == null ? {} : { holderGraceMs: opts.holderGrace * 1000 }),
    ...(opts.maxJobOutput == null ? {} : { maxJobOutputBytes: opts.maxJobOutput }),
    process: opts.process,
    chain,
    http: opts.http
  }
}

/**
 * The `--model` values a peer can keep and the registry record: an `ipfs://` one names a CID, none is longer than the
 * registry's ids, and there are no more than it records per node (a peer started with more ran on, and tried to
 * record the rest for as long as it ran).
 *
 * @throws UsageError
 */
async function checkModels (models: string[]): Promise<string[]> {
  const { MAX_MODEL_ID_BYTES, MAX_MODEL_RECORDS } = await import('@jobmesh/contracts')
  const { parseContentUri } = await import('../../storage/index.js')
  if (models.length > MAX_MODEL_RECORDS) {
    throw new UsageError(`--model: ${models.length} models; the registry records at most ${MAX_MODEL_RECORDS} per node`)
  }
  for (const m of models) {
    const bytes = Buffer.byteLength(m)
    if (bytes > MAX_MODEL_ID_BYTES) throw new UsageError(`--model: ${m.slice(0, 32)}... is ${bytes} bytes long; the registry records ids of at most ${MAX_MODEL_ID_BYTES}`)
    if (!m.startsWith('ipfs://')) continue
    try {
      parseContentUri(m)
    } catch (err) {
      throw new UsageError(`--model: ${(err as Error).message} (an ipfs:// model is ipfs://<cid> of the content jobs name)`)
    }
  }
  return models
}

async function chainInit (opts: StartOptions): Promise<PeerChainInit | undefined> {
  const wallet = await readWallet(opts)
  if (wallet == null) {
    if (opts.commitTimeout != null) throw new UsageError('--commit-timeout needs --rpc (or JOBMESH_RPC_URL)')
    if (opts.stake != null) throw new UsageError('--stake needs --rpc (or JOBMESH_RPC_URL): a node without a chain stakes nothing')
    return undefined
  }
  const { formatEther, parseEther } = await import('ethers')
  const { TIMEOUT_MIN_PCT, TIMEOUT_MAX_PCT } = await import('@jobmesh/contracts')
  const timeout = opts.commitTimeout
  if (timeout != null && (timeout < TIMEOUT_MIN_PCT || timeout > TIMEOUT_MAX_PCT)) {
    throw new UsageError(`--commit-timeout: expected a whole percent from ${TIMEOUT_MIN_PCT} to ${TIMEOUT_MAX_PCT}, got ${timeout}`)
  }
  if (opts.vram < 1) {
    throw new UsageError('--vram: registering on a chain needs the node\'s VRAM in whole GB, at least 1 (the registry refuses 0)')
  }
  // --stake passed `ethAmount`: a decimal amount parseEther reads
  const stakeEth = opts.stake ?? DEFAULT_STAKE_ETH
  const stake = parseEther(stakeEth)
  const minStake = wallet.deployment.params.registry.minStake
  if (stake < minStake) {
    throw new UsageError(`--stake: ${stakeEth} ETH${opts.stake == null ? ' (the default)' : ''} is below the registry's minimum stake of ${formatEther(minStake)} ETH`)
  }
  return { ...wallet, stake, commitTimeoutPct: opts.commitTimeout, settlement: { takeoverGraceMs: opts.takeoverGrace * 1000 } }
}
