import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { waitFor } from '@jobmesh/testkit'
import { shortId } from '@jobmesh/peer/observe'
import { PNG } from 'pngjs'
import { CONTROL_SOCKET } from '../../packages/peer/src/cli/constants.js'
import { fetchStatus } from '../../packages/peer/src/cli/control.js'
import { encodeMandelbrotData, mandelbrotReference, mandelbrotResultPng, MANDELBROT_TILE_HEADER } from '../../examples/src/index.js'
import type { MandelbrotImage } from '../../examples/src/index.js'
import type { JobClient, MicroJobOutput, SubmittedJob } from '@jobmesh/dapp-sdk'
import type { PeerStatus } from '@jobmesh/peer'
import type { Devnet } from '@jobmesh/peer/devnet'

// the devnet start is plain JS (types in network.d.ts) so that bench/ starts its devnets the same way
export { startNetwork } from './network.js'
export type { Network } from './network.js'

/** The test peer that returns wrong outputs (`entry` of a devnet peer; modes in the file). */
export const CHEATING_PEER = fileURLToPath(new URL('./peers/cheating-peer.mjs', import.meta.url))
/** A cheating peer whose profile names another wallet (`framing-peer.mjs <address> <cheating-peer args>`). */
export const FRAMING_PEER = fileURLToPath(new URL('./peers/framing-peer.mjs', import.meta.url))

/** Whether a Mandelbrot job's outputs make exactly the reference image (computed here, in one process). */
export function matchesReference (outputs: MicroJobOutput[], image: MandelbrotImage): boolean {
  const png = PNG.sync.read(Buffer.from(mandelbrotResultPng(outputs)))
  const reference = mandelbrotReference(encodeMandelbrotData(image, 1)).subarray(MANDELBROT_TILE_HEADER)
  const gray = new Uint8Array(image.width * image.height)
  for (let i = 0; i < gray.length; i++) gray[i] = png.data[i * 4]
  return Buffer.from(gray).equals(Buffer.from(reference))
}

/**
 * What a running `jobmesh start` answers on its control socket, exactly what `jobmesh status --json` prints (that
 * command runs against real peers in cli/models.test.ts and dashboard.test.ts). Read here without the CLI: the waits
 * below poll it every 250 ms for several peers, and each CLI process costs ~0.7 s of CPU on a machine the peers'
 * MicroJobs already fill.
 */
export async function peerStatus (dataDir: string, timeoutMs = 10_000): Promise<PeerStatus> {
  return await fetchStatus(join(dataDir, CONTROL_SOCKET), timeoutMs) as PeerStatus
}

/** The MicroJob the cheating peer (test/e2e/peers) printed it cheated on in a job (`macro.index`), if any. */
export function cheatedOn (output: readonly string[], jobId: string): string | undefined {
  const line = output.find(l => l.toLowerCase().startsWith(`cheated on ${jobId.toLowerCase()} `))
  return line?.split(' ')[3]
}

/**
 * Submits jobs one at a time (at most `attempts`) until the cheating peer `cheater` cheats on one, and returns it.
 * A cheater that fakes only what it processes may process nothing of a small job: a peer that starts on the job a
 * second after the others (its content pinned, its escrow read, on a busy machine) finds every MacroJob done. Such a
 * job is honest; it is left to be released and the next one is submitted. Each job is a fresh draw: a devnet's
 * first peer (the cheaters' place, the one every other peer and the DApp dial, so the busiest at a job's start)
 * processed nothing of 8 of 28 jobs of 8 x 2 and 8 x 4 MicroJobs on an idle machine (the others 3-5 each), and a CI
 * run once saw it miss three in a row: six attempts leave about one run in 1 700 to that.
 */
export async function submitUntilCheated (devnet: Devnet, client: JobClient, cheater: { output: readonly string[] },
  submit: () => Promise<SubmittedJob>, attempts = 6): Promise<SubmittedJob> {
  for (let attempt = 1; ; attempt++) {
    const job = await submit()
    const cheated = await waitFor(async () => {
      if (cheatedOn(cheater.output, job.jobId) != null) return 'cheated'
      return (await client.status(job.jobId)).status === 'Released' ? 'honest' : undefined
    }, { what: `a cheat on, or the release of, job ${job.jobId}`, timeoutMs: 150_000, intervalMs: 250 })
      .catch(withHistory(devnet, job.jobId))
    if (cheated === 'cheated') return job
    if (attempt >= attempts) throw new Error(`the cheating peer processed no MicroJob of ${attempts} jobs`)
    console.info(`the cheating peer processed no MicroJob of job ${attempt} (${job.jobId}): submitting another`)
  }
}

/** Waits until `done` MicroJobs of the job have results (or the progress iterator ends). */
export async function progressAtLeast (client: JobClient, jobId: string, done: number, signal?: AbortSignal): Promise<number> {
  let seen = 0
  for await (const p of client.progress(jobId, { signal })) {
    seen = p.done
    if (p.done >= done) break
  }
  return seen
}

/**
 * A catch handler for a wait on a job: rethrows the error with the job's history appended ({@link jobHistory}), so a
 * stalled wait says where the job stood.
 */
export function withHistory (devnet: Devnet, jobId: string): (err: Error) => Promise<never> {
  return async (err) => { throw new Error(`${err.message}\n${await jobHistory(devnet, jobId)}`, { cause: err }) }
}

/** What a peer's processor says of a job (`jobmesh status --json`), or why it could not be asked. */
async function processorView (dataDir: string, jobId: string): Promise<string> {
  try {
    const s = await peerStatus(dataDir)
    const job = s.jobs.find(j => j.jobId.toLowerCase() === jobId.toLowerCase())
    return `job ${job?.state ?? 'unknown'}, current ${s.work.currentJob ?? 'none'}, done ${s.work.microJobsDone}, failed ${s.work.microJobsFailed}, ` +
      `finalizing ${(s.finalizing ?? []).length}, connected ${s.peers.length}`
  } catch (err) {
    return `unavailable (${(err as Error).message.split('\n')[0]})`
  }
}

/**
 * A job's story for a failing test: its escrow events in order, the job's state, and what each peer logged about it
 * (peer output carries `DEBUG=jobmesh:*` lines when the test runs with DEBUG set).
 */
export async function jobHistory (devnet: Devnet, jobId: string): Promise<string> {
  const { connect, createProvider } = await import('@jobmesh/contracts')
  const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
  try {
    const { jobEscrow, nodeRegistry } = connect(devnet.deployment, provider)
    const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => typeof x === 'bigint' ? x.toString() : x)
    const lines = [`job ${jobId} at block ${await provider.getBlockNumber()}`]
    for (const e of await jobEscrow.queryFilter('*' as never, 0)) {
      if ('args' in e && String(e.args[0]).toLowerCase() === jobId.toLowerCase()) lines.push(`  ${e.blockNumber} ${e.eventName} ${json(e.args.toArray().slice(1))}`)
    }
    lines.push(`  state ${json((await jobEscrow.jobs(jobId)).toArray())}`)
    // operator lines name a job in full or shortened (observe's shortId: `0x52b8a1…24a5`)
    const needles = [jobId.slice(2, 14).toLowerCase(), shortId(jobId).toLowerCase()]
    for (const [i, p] of devnet.peers.entries()) {
      const info = await nodeRegistry.nodeInfo(devnet.peerAccount(i).address)
      lines.push(`  peer ${i} ${devnet.peerAccount(i).address} ${p.peerId} eligible ${String(info.eligible)} busy ${String(info.busy)} paused ${String(info.paused)} kicked ${String(info.kickedOut)} stake ${String(info.stake)} score ${String(info.score)} weight ${String(info.weight)}`)
      lines.push(`    status ${await processorView(p.dataDir, jobId)}`)
      for (const l of p.output) if (needles.some(n => l.toLowerCase().includes(n))) lines.push(`    ${l.slice(0, 300)}`)
      for (const l of p.output.filter(l => /error|failed/i.test(l)).slice(-10)) lines.push(`    ! ${l.slice(0, 300)}`)
    }
    return lines.join('\n')
  } finally {
    provider.destroy()
  }
}

