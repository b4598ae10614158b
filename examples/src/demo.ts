#!/usr/bin/env node
/**
 * `npm run demo`: the whole network on this machine. Starts a devnet (anvil, the contracts, N registered
 * `jobmesh start` processes), submits the Mandelbrot job through the SDK, shows its progress, waits for the
 * escrow release, prints what each peer earned and writes the PNG. Ctrl-C stops everything.
 */
import '@jobmesh/peer/polyfill'
import { constants } from 'node:fs'
import { access, mkdir, stat, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { SingleBar } from 'cli-progress'
import { DEFAULT_VERIFIERS, createJobClient } from '@jobmesh/dapp-sdk'
import { startDevnet } from '@jobmesh/peer/devnet'
import { kernelFilesystem } from '@jobmesh/peer/kernel-fs'
import { MIN_VERIFIERS, nodesNeeded } from '@jobmesh/peer/protocol'
import { formatEther, parseEther } from 'ethers'
import { submitMandelbrot, mandelbrotResultPng } from './mandelbrot-job.js'
import { readPayouts } from './payouts.js'
import type { MandelbrotImage } from './mandelbrot-data.js'
import type { Devnet } from '@jobmesh/peer/devnet'

/**
 * Fewest peers the demo runs: its job has k >= MIN_VERIFIERS verifiers, drawn among the peers besides the one that
 * submits the results, so it needs k + 1 of them to be released.
 */
const MIN_PEERS = nodesNeeded(MIN_VERIFIERS)
const MAX_PEERS = 12

const USAGE = `usage: npm run demo -- [--peers N] [--chain-id ID] [--block-time S] [--out FILE] [--dashboard]

  --peers N        peers to run, ${MIN_PEERS} to ${MAX_PEERS} (default 4); the job has k = min(${DEFAULT_VERIFIERS}, N - 1) verifiers, drawn
                   among the peers besides the one that submits its results: k verifiers need k + 1 peers,
                   and k is at least ${MIN_VERIFIERS}
  --chain-id ID    chain id (default 31337; 80002 looks like Polygon Amoy)
  --block-time S   seconds per block (default 1; Polygon Amoy: 2)
  --out FILE       where to write the PNG (default ./mandelbrot.png)
  --dashboard      keep the network running after the job (Ctrl-C to stop) so you can look at the dashboard
`

const IMAGE: MandelbrotImage = { width: 768, height: 512, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 200 }

async function main (): Promise<number> {
  const args = parseCommandLine()
  if (args == null) return 2
  // before anything starts: a path the image cannot be written to would lose it once the job is paid
  const badOut = await prepareOut(args.out)
  if (badOut !== undefined) {
    process.stderr.write(`error: ${badOut}\n(npm run demo -- --help for usage)\n`)
    return 2
  }
  // with fewer peers than the default k + 1 the job would never be released
  const verifiers = Math.min(DEFAULT_VERIFIERS, args.peers - 1)
  const controller = new AbortController()
  // kept until the end (not `once`): with no listener left, the local chain's own signal hook re-raised the signal and
  // the demo died at once, before its peers stopped; a second Ctrl-C ends it at once
  const onSignal = (): void => {
    if (controller.signal.aborted) process.exit(130)
    process.stdout.write('\nstopping...\n')
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const t0 = Date.now()
  const elapsed = (): string => `${((Date.now() - t0) / 1000).toFixed(1)} s`
  let devnet: Devnet | undefined
  try {
    process.stdout.write(`starting a devnet with ${args.peers} peers\n`)
    devnet = await startDevnet({
      peers: args.peers,
      chainId: args.chainId,
      blockTime: args.blockTime,
      contracts: { escrow: { commitWindow: 8, revealWindow: 8 } },
      http: true,
      onProgress: stage => { process.stdout.write(`  ${stage.padEnd(12)} ${elapsed()}\n`) },
      signal: controller.signal
    })
    process.stdout.write(`chain ${devnet.anvil.rpcUrl} (id ${devnet.anvil.chainId}), bootstrap ${devnet.bootstrap[0]}\n`)
    if (devnet.peers[0]?.dashboardUrl != null) process.stdout.write(`dashboard ${devnet.peers[0].dashboardUrl} (open it in a browser)\n`)
    const client = await createJobClient({
      rpcUrl: devnet.anvil.rpcUrl,
      signer: devnet.dapp.privateKey,
      deployment: devnet.deployment,
      bootstrap: devnet.bootstrap
    })
    try {
      const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 4, microJobsPerMacro: 8, price: parseEther('1'), verifiers }, {
        signal: controller.signal,
        onProgress: p => { process.stdout.write(`  ${p.stage.padEnd(12)} ${elapsed()}\n`) }
      })
      process.stdout.write(`job ${job.jobId} created in block ${job.blockNumber}: ${job.microJobs.length} MicroJobs, ${verifiers} verifiers, fee 1 ETH\n`)
      const bar = new SingleBar({ format: '  processing [{bar}] {value}/{total} MicroJobs {duration}s', hideCursor: true })
      bar.start(job.microJobs.length, 0)
      for await (const { done } of client.progress(job.jobId, { signal: controller.signal })) {
        bar.update(done)
      }
      bar.stop()
      process.stdout.write(`all MicroJobs done at ${elapsed()}; verifiers are checking a sample on chain\n`)
      const release = await client.waitForRelease(job.jobId, { signal: controller.signal })
      process.stdout.write(`escrow released in block ${release.blockNumber} at ${elapsed()}\n`)
      const outputs = await client.results(job.jobId, { signal: controller.signal })
      const png = mandelbrotResultPng(outputs)
      await writeFile(args.out, png)
      const payouts = await readPayouts({ rpcUrl: devnet.anvil.rpcUrl, deployment: devnet.deployment, jobId: job.jobId, signal: controller.signal })
      process.stdout.write('\n' + payoutTable(devnet, payouts) + '\n')
      process.stdout.write(`${outputs.length} outputs verified against their hashes; image: ${args.out}\n`)
      process.stdout.write(`done in ${elapsed()}\n`)
      if (args.dashboard) {
        process.stdout.write(`\nthe network keeps running: dashboard ${devnet.peers[0]?.dashboardUrl ?? '-'} (Ctrl-C to stop)\n`)
        await new Promise<void>(resolve => {
          if (controller.signal.aborted) resolve()
          controller.signal.addEventListener('abort', () => { resolve() }, { once: true })
        })
      }
      return 0
    } finally {
      await client.stop()
    }
  } catch (err) {
    if (controller.signal.aborted) return 130
    const e = err as Error
    process.stderr.write(`demo failed: ${e.name}: ${e.message}\n`)
    for (const p of devnet?.peers ?? []) {
      process.stderr.write(`--- ${p.name} (last lines)\n${p.output.slice(-8).join('\n')}\n`)
    }
    return 1
  } finally {
    await devnet?.stop()
    // a Ctrl-C said "stopping...": say when everything it started is down
    if (controller.signal.aborted) process.stdout.write('stopped\n')
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

function payoutTable (devnet: Devnet, payouts: Array<{ address: string, processor: bigint, verifier: bigint }>): string {
  const rows = devnet.peers.map((p, i) => {
    const wallet = devnet.peerAccount(i).address
    const paid = payouts.find(x => x.address.toLowerCase() === wallet.toLowerCase())
    return [p.name, wallet, eth(paid?.processor), eth(paid?.verifier)]
  })
  const headers = ['peer', 'wallet', 'processing (ETH)', 'verifying (ETH)']
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map(r => r[i].length)))
  const line = (r: string[]): string => r.map((c, i) => c.padEnd(widths[i])).join('  ')
  return [line(headers), line(widths.map(w => '-'.repeat(w))), ...rows.map(line)].join('\n')
}

function eth (wei: bigint | undefined): string {
  return wei == null || wei === 0n ? '-' : formatEther(wei)
}

interface DemoArgs { peers: number, chainId?: number, blockTime?: number, out: string, dashboard: boolean }

function parseCommandLine (): DemoArgs | undefined {
  try {
    const { values } = parseArgs({
      options: {
        peers: { type: 'string', default: '4' },
        'chain-id': { type: 'string' },
        'block-time': { type: 'string' },
        out: { type: 'string', default: 'mandelbrot.png' },
        dashboard: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' }
      }
    })
    if (values.help === true) {
      process.stdout.write(USAGE)
      process.exit(0)
    }
    const peers = Number(values.peers)
    const chainId = values['chain-id'] == null ? undefined : Number(values['chain-id'])
    const blockTime = values['block-time'] == null ? undefined : Number(values['block-time'])
    if (!Number.isInteger(peers) || peers < MIN_PEERS || peers > MAX_PEERS) {
      throw new Error(`--peers must be a whole number from ${MIN_PEERS} to ${MAX_PEERS}: the job's k >= ${MIN_VERIFIERS} verifiers are drawn among the peers besides the one that submits its results, so it needs k + 1 >= ${MIN_PEERS} peers`)
    }
    if (chainId != null && (!Number.isInteger(chainId) || chainId < 1)) throw new Error('--chain-id must be a positive whole number')
    if (blockTime != null && !(blockTime > 0)) throw new Error('--block-time must be a number of seconds > 0')
    return { peers, chainId, blockTime, out: resolve(values.out ?? 'mandelbrot.png'), dashboard: values.dashboard === true }
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n${USAGE}`)
    return undefined
  }
}

/**
 * Makes the folder of `--out` (mkdir -p) and checks the image can be written there; returns what is wrong, if anything.
 */
async function prepareOut (out: string): Promise<string | undefined> {
  const dir = dirname(out)
  const kernel = await kernelFilesystem(dir)
  if (kernel !== undefined) return `--out ${out}: it is on ${kernel}, the kernel's own file system: not a place for an image`
  try {
    await mkdir(dir, { recursive: true })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    return code === 'EEXIST' || code === 'ENOTDIR'
      ? `--out ${out}: its folder ${dir} cannot be made: it, or a folder above it, is a file`
      : `--out ${out}: its folder ${dir} cannot be made (${code ?? (err as Error).message})`
  }
  const existing = await stat(out).catch(() => undefined)
  if (existing?.isDirectory() === true) return `--out ${out} is a directory: name a file, such as ${join(out, 'mandelbrot.png')}`
  try {
    await access(existing === undefined ? dir : out, constants.W_OK)
  } catch {
    return `--out ${out}: ${existing === undefined ? `its folder ${dir}` : 'the file'} is not writable`
  }
  return undefined
}

process.exitCode = await main()
