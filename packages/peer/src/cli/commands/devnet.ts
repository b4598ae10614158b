import { stat, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { DevnetChainExitedError, InterruptedError, UsageError } from '../errors.js'
import { EXITED_PEER_LINES, MAX_DEVNET_PEERS, MIN_DEVNET_PEERS } from '../constants.js'
import { blockTime, checkDirectory, devnetPeers, ethAmount, positiveInteger } from '../options.js'
import { table } from '../output.js'
import { terminalSafe } from '../terminal-text.js'
import { restartCommand } from '../restart-line.js'
import { DEFAULT_VERIFIERS, nodesNeeded } from '../../protocol/index.js'
import { untilSignal, watchInterrupt } from '../signals.js'
import { DEFAULT_DEVNET_PEERS, DEFAULT_DEVNET_STAKE } from '../../devnet/index.js'
import type { Devnet, PeerProcess } from '../../devnet/index.js'
import type { AnvilExit } from '@jobmesh/contracts'
import { Option } from 'commander'
import type { Command } from 'commander'

export interface DevnetOptions {
  peers: number
  chainId?: number
  blockTime?: number
  dir?: string
  stake: string
  http: boolean
}

/** `jobmesh devnet`: a local chain, the contracts and N peers, until Ctrl-C. */
export function devnetCommand (program: Command): void {
  program.command('devnet')
    .description('run a whole network on this machine: anvil, the contracts, and N registered peers (until Ctrl-C)')
    .option('-n, --peers <n>', `number of peers, ${MIN_DEVNET_PEERS} to ${MAX_DEVNET_PEERS} (a job's verifiers are drawn from the peers besides its submitter: k verifiers need k + 1)`, devnetPeers, DEFAULT_DEVNET_PEERS)
    .option('--chain-id <id>', 'chain id (80002 makes it look like Polygon Amoy)', positiveInteger)
    .option('--block-time <s>', 'seconds per block, > 0 (default 1; Polygon Amoy: 2)', blockTime)
    .option('--dir <dir>', 'where peers keep their data, kept after the stop (default: a new temp dir, removed at the stop)')
    .addOption(new Option('--stake <eth>', 'stake each peer registers with, at least the minimum stake of the registry it deploys; a job\'s submission locks 2 x its fee of each payee\'s').argParser(ethAmount).default(DEFAULT_DEVNET_STAKE, DEFAULT_DEVNET_STAKE))
    .option('--no-http', 'do not serve the peers\' dashboards and /metrics')
    .action(async (opts: DevnetOptions) => {
      // a Ctrl-C before `running` stops what was started (peers, chain), says so and exits 130: in place at once, as
      // the CLI's loading handler goes (a Ctrl-C during the checks below was lost)
      const interrupt = watchInterrupt()
      let devnet: Devnet
      // what its peers register with, for the line that connects another peer like them
      let vramGb = 0
      try {
        if (opts.dir != null) await checkDirectory(resolve(opts.dir), '--dir')
        await checkStake(opts.stake)
        interrupt.signal.throwIfAborted()
        process.stdout.write(`starting devnet with ${opts.peers} peers...\n`)
        if (opts.dir != null && await usedBefore(resolve(opts.dir))) {
          process.stdout.write(`note: ${resolve(opts.dir)} holds an earlier devnet's peers; that chain stopped with it (anvil keeps its state in ` +
            'memory), so the peers list its jobs (as open, though nothing funds them here) until their deadlines pass: a new --dir starts clean\n')
        }
        const { startDevnet, DEFAULT_DEVNET_VRAM_GB } = await import('../../devnet/index.js')
        vramGb = DEFAULT_DEVNET_VRAM_GB
        devnet = await startDevnet({
          peers: opts.peers,
          chainId: opts.chainId,
          blockTime: opts.blockTime,
          dir: opts.dir == null ? undefined : resolve(opts.dir),
          stake: opts.stake,
          http: opts.http,
          onProgress: stage => { process.stdout.write(`  ${stage}\n`) },
          signal: interrupt.signal
        })
        if (interrupt.received !== undefined) {
          await devnet.stop()
          interrupt.signal.throwIfAborted()
        }
      } catch (err) {
        if (interrupt.received !== undefined) throw new InterruptedError('interrupted before the devnet was ready: stopped', interrupt.received)
        throw err
      } finally {
        interrupt.off()
      }
      process.stdout.write(describe(devnet, await writeSpareKeys(devnet), vramGb))
      // a peer that dies while the devnet runs is named (the others go on): it was silent, and its row still listed
      let stopping = false
      const gone = new Set<PeerProcess>()
      for (const p of devnet.peers) {
        void p.exited.then(code => {
          gone.add(p)
          if (stopping) return
          process.stderr.write(`${p.name} exited (${code == null ? 'killed by a signal' : `code ${code}`}): the other peers go on; its data is in ${p.dataDir}\n` +
            `  to start it again (its own key and data dir): ${restartCommand(p, devnet.peers.filter(o => !gone.has(o)))}` +
            `${opts.dir == null ? ` (stop it before the devnet: the devnet removes ${devnet.dir} when it stops)` : ''}\n` +
            lastLines(p))
        })
      }
      // the chain gone (anvil killed or crashed), no peer can do anything: the devnet stops and says why
      const chainGone = new AbortController()
      void devnet.anvil.exited.then(() => { chainGone.abort() })
      const chainExit = await untilSignal(false, chainGone.signal) === 'aborted' ? await devnet.anvil.exited : undefined
      stopping = true
      if (chainExit !== undefined) process.stderr.write(`the devnet's chain (anvil, pid ${devnet.anvil.pid}) ${exitText(chainExit)}: stopping the devnet\n`)
      process.stdout.write('stopping devnet...\n')
      await devnet.stop()
      process.stdout.write(opts.dir == null ? `stopped; its data (${devnet.dir}) was removed: --dir <dir> keeps a devnet's data\n` : 'stopped\n')
      if (chainExit !== undefined) {
        throw new DevnetChainExitedError(`the devnet's chain ${exitText(chainExit)} while the devnet ran; start the devnet again (a new chain: jobs, stakes and contracts of this one are gone)`)
      }
    })
}

function exitText (exit: AnvilExit): string {
  return exit.signal != null ? `was killed (${exit.signal})` : `exited with code ${exit.code ?? 'unknown'}`
}

/**
 * `--stake` against the minimum stake of the registry the devnet deploys (the default parameters), before anything
 * starts: else each peer would be refused only once the chain runs and the contracts are deployed.
 *
 * @throws UsageError below it
 */
async function checkStake (stake: string): Promise<void> {
  const [{ formatEther, parseEther }, { resolveDeployParams }] = await Promise.all([import('ethers'), import('@jobmesh/contracts')])
  const minStake = resolveDeployParams().registry.minStake
  // --stake passed `ethAmount`: a decimal amount parseEther reads
  if (parseEther(stake) < minStake) {
    throw new UsageError(`--stake: ${stake} ETH is below the registry's minimum stake of ${formatEther(minStake)} ETH`)
  }
}

/** `export JOBMESH_...=...` lines: the variables both CLIs read (commander's Option.env). */
export function exportLines (devnet: Pick<Devnet, 'anvil' | 'deploymentFile' | 'bootstrap' | 'dapp'>): string[] {
  return [
    `export JOBMESH_RPC_URL=${devnet.anvil.rpcUrl}`,
    `export JOBMESH_DEPLOYMENT=${devnet.deploymentFile}`,
    `export JOBMESH_BOOTSTRAP=${devnet.bootstrap.join(',')}`,
    `export JOBMESH_PRIVATE_KEY=${devnet.dapp.privateKey}`
  ]
}

/** The last lines a devnet peer printed (its stop, or what it died of), indented under its exit line. */
function lastLines (p: Pick<PeerProcess, 'output'>): string {
  const tail = p.output.slice(-EXITED_PEER_LINES)
  return tail.length === 0 ? '' : `  its last lines:\n${tail.map(l => `    ${terminalSafe(l)}\n`).join('')}`
}

/** The active nodes a job with the default k needs: its submitter and k others. */
const NODES_FOR_A_DEFAULT_JOB = nodesNeeded(DEFAULT_VERIFIERS)

/**
 * Writes keys of funded anvil accounts no peer uses to the devnet's dir, one per extra peer (`spare-wallet.key`,
 * `spare-wallet-2.key`, ...): one, or as many as a devnet with fewer peers lacks for a job with the default k.
 * Returns their paths.
 */
async function writeSpareKeys (devnet: Devnet): Promise<string[]> {
  const count = Math.max(1, NODES_FOR_A_DEFAULT_JOB - devnet.peers.length)
  const files: string[] = []
  for (let i = 0; i < count; i++) {
    const spare = devnet.anvil.accounts[devnet.peers.length + 1 + i]
    if (spare === undefined) break
    const file = join(devnet.dir, i === 0 ? 'spare-wallet.key' : `spare-wallet-${i + 1}.key`)
    await writeFile(file, `${spare.privateKey}\n`, { mode: 0o600 })
    files.push(file)
  }
  return files
}

/** What the spare keys are for, and, on a devnet too small for a default job, how many more peers it needs. */
function spareKeyLines (devnet: Devnet, keys: string[]): string[] {
  const lines = keys.length === 1
    ? [`  ${keys[0]}: the key of a funded anvil account no peer uses (for one extra peer; each further extra peer needs a funded key of its own)`]
    : keys.length > 1 ? [`  ${keys.join(', ')}: keys of funded anvil accounts no peer uses, one for each extra peer`] : []
  const missing = NODES_FOR_A_DEFAULT_JOB - devnet.peers.length
  if (missing > 0) {
    lines.push(`  note: a job with the default ${DEFAULT_VERIFIERS} verifiers needs ${NODES_FOR_A_DEFAULT_JOB} active nodes (its submitter and ` +
      `${DEFAULT_VERIFIERS} others); this devnet has ${devnet.peers.length}: start ${missing} more with the line above, ` +
      `${missing === 1 ? 'with the spare key' : 'one spare key each'}, before submitting (jobmesh-dapp submit refuses it until then)`)
  }
  return lines
}

function describe (devnet: Devnet, spareKeys: string[], vramGb: number): string {
  const spareKey = spareKeys[0]
  const rows = devnet.peers.map((p, i) => [p.name, p.peerId, devnet.peerAccount(i).address, p.dashboardUrl ?? '-', p.dataDir])
  return [
    '',
    `chain       ${devnet.anvil.rpcUrl} (chain id ${devnet.anvil.chainId}, anvil pid ${devnet.anvil.pid})`,
    `contracts   NodeRegistry ${devnet.deployment.nodeRegistry}, JobEscrow ${devnet.deployment.jobEscrow}`,
    `deployment  ${devnet.deploymentFile}`,
    `bootstrap   ${devnet.bootstrap[0] ?? ''}`,
    `dapp key    ${devnet.dapp.privateKey} (${devnet.dapp.address}, funded, used by no peer)`,
    `treasury    ${devnet.treasury} (the escrow's: slashed stakes, forfeited shares, unclaimed fees; an account nobody else uses)`,
    '',
    'for the DApp CLI and SDK (paste into another shell):',
    ...exportLines(devnet),
    'then, e.g. (data: node examples/dist/generate-data.js examples/data):',
    '  npx jobmesh-dapp submit --code examples/build/mandelbrot.wasm --data examples/data/mandelbrot.bin \\',
    '    --macro-jobs 4 --micro-per-macro 8 --blocks-per-micro 3 --block-size 64 --price 0.01',
    '',
    table(['peer', 'peer id', 'wallet', 'dashboard', 'data dir'], rows),
    ...(devnet.peers[0]?.dashboardUrl != null ? [`dashboard   ${devnet.peers[0].dashboardUrl} (open it in a browser; /metrics for Prometheus)`, ''] : []),
    'connect another peer:',
    `  npx jobmesh start --data-dir <dir> --vram ${vramGb} --bootstrap ${devnet.bootstrap[0] ?? ''} --rpc ${devnet.anvil.rpcUrl} --deployment ${devnet.deploymentFile} --key-file ${spareKey ?? '<file>'}`,
    `  (with the variables above exported: npx jobmesh start --data-dir <dir> --vram ${vramGb} --key-file ${spareKey ?? '<file>'})`,
    ...spareKeyLines(devnet, spareKeys),
    '  (a devnet peer that exits is started again with the line printed then: its own data dir and key, <data dir>/wallet.key, and its port)',
    'status of a peer:',
    `  npx jobmesh status --data-dir ${devnet.peers[0]?.dataDir ?? ''}`,
    '',
    'running (Ctrl-C to stop)',
    ''
  ].join('\n')
}

/** Whether a devnet ran in `dir` before: its first peer's data dir is there. */
async function usedBefore (dir: string): Promise<boolean> {
  return await stat(join(dir, 'peer-0', 'datastore')).then(() => true, () => false)
}
