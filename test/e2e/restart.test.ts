import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseEther } from 'ethers'
import { connect, createProvider } from '@jobmesh/contracts'
import { createJobClient } from '@jobmesh/dapp-sdk'
import { startDevnet } from '@jobmesh/peer/devnet'
import { readPayouts, submitMandelbrot } from '../../examples/src/index.js'
import { peerStatus, withHistory } from './helpers.js'
import type { JobClient } from '@jobmesh/dapp-sdk'
import type { PeerStatus } from '@jobmesh/peer'
import type { Devnet } from '@jobmesh/peer/devnet'
import { waitFor } from '@jobmesh/testkit'

const IMAGE = { width: 96, height: 48, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }

async function status (dataDir: string): Promise<PeerStatus | undefined> {
  try {
    return await peerStatus(dataDir, 2_000)
  } catch {
    return undefined
  }
}

describe('restarts: a peer that dies mid-duty resumes it, or another takes over (4 jobmesh processes)', () => {
  let devnet: Devnet
  let dir: string
  let client: JobClient
  let escrow: ReturnType<typeof connect>['jobEscrow']
  let provider: ReturnType<typeof createProvider>

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-e2e-restart-'))
    // a reveal window long enough for a verifier process to restart in it on a loaded machine; a finalizer
    // restarted within 30 s submits itself (a restart takes a few seconds), one gone for good is replaced after 30 s
    devnet = await startDevnet({
      dir: join(dir, 'net'), peers: 4, contracts: { escrow: { commitWindow: 10, revealWindow: 25 } }, peer: () => ({ takeoverGraceSeconds: 30 })
    })
    client = await createJobClient({
      rpcUrl: devnet.anvil.rpcUrl, signer: devnet.dapp.privateKey, deployment: devnet.deployment,
      bootstrap: devnet.peers.map(p => p.addresses.find(a => !a.includes('/ws')) ?? '').map((a, i) => a.includes('/p2p/') ? a : `${a}/p2p/${devnet.peers[i].peerId}`)
    })
    provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    escrow = connect(devnet.deployment, provider).jobEscrow
  }, 120_000)

  afterAll(async () => {
    if (process.env.JOBMESH_E2E_LOGS != null) {
      for (const p of devnet.peers) process.stderr.write(`---- ${p.name}\n${p.output.slice(-150).join('\n')}\n`)
    }
    provider?.destroy()
    await client?.stop()
    await devnet?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  const walletOf = (i: number): string => devnet.peerAccount(i).address.toLowerCase()

  /**
   * The peers whose results completed the job show it as being finalized (one, or a few that finished their last
   * MicroJobs together): kills each there, until every other peer shows the job complete (a peer decides whether it
   * finalizes when it sees the job complete, so no other peer starts a finalization after that). Returns their indexes.
   */
  async function killFinalizers (jobId: string): Promise<number[]> {
    const victims: number[] = []
    await waitFor(async () => {
      const live = devnet.peers.flatMap((p, i) => victims.includes(i) || p.child.exitCode != null || p.child.signalCode != null ? [] : [i])
      const states = await Promise.all(live.map(async i => await status(devnet.peers[i].dataDir)))
      const finalizing = live.filter((_, j) => states[j]?.finalizing?.includes(jobId) === true)
      for (const i of finalizing) devnet.peers[i].kill('SIGKILL')
      victims.push(...finalizing)
      const decided = states.every((s, j) => finalizing.includes(live[j]) || s?.jobs.some(x => x.jobId === jobId && x.state === 'complete') === true)
      return victims.length > 0 && decided ? true : undefined
    }, { timeoutMs: 120_000, what: 'every peer to see the job complete, its finalizers killed', intervalMs: 50 })
    for (const i of victims) await devnet.peers[i].exited
    return victims
  }

  it('the finalizer killed after the last MicroJob, restarted: it submits, serves its manifest, every payee claims', async () => {
    const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 3, microJobsPerMacro: 4, price: parseEther('1'), verifiers: 3 })
    const victims = await killFinalizers(job.jobId)
    for (const i of victims) await devnet.peers[i].exited
    // killed before a submission reached the chain
    expect(Number(await escrow.statusOf(job.jobId))).toBe(1) // Open
    const tcp = (i: number): string | undefined => devnet.peers[i].addresses.find(a => !a.includes('/ws'))
    const before = victims.map(tcp)
    for (const i of victims) await devnet.restartPeer(i)
    // each is back on its address of before: the client, which knows the peers by the addresses it was given, reaches
    // them again (when every peer finalized, and so was killed, it had no other)
    expect(victims.map(tcp)).toEqual(before)

    const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 180_000 })
      .catch(withHistory(devnet, job.jobId))
    expect(release.status).toBe('Released')
    const submitted = await escrow.queryFilter(escrow.filters.ResultsSubmitted(job.jobId))
    expect(submitted).toHaveLength(1)
    expect(victims.map(walletOf)).toContain(String((submitted[0] as unknown as { args: { submitter: string } }).args.submitter).toLowerCase())
    // every payee could load the manifest and claim: every leaf (pool / 12 per MicroJob) is paid out
    const pool = BigInt(await escrow.processorPool(job.jobId))
    const payouts = await readPayouts({ rpcUrl: devnet.anvil.rpcUrl, deployment: devnet.deployment, jobId: job.jobId, timeoutMs: 90_000 })
    expect(payouts.reduce((a, p) => a + p.processor, 0n)).toBe(pool / 12n * 12n)
    const outputs = await client.results(job.jobId, { fetchTimeoutMs: 20_000, timeoutMs: 60_000 })
    expect(outputs).toHaveLength(12)
  }, 420_000)

  it('the finalizer killed for good after the last MicroJob: another peer of the job takes over after the grace time, the job is released', async () => {
    // one MicroJob: its processor is the job's only finalizer, the three others see the job complete and wait
    const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 1, microJobsPerMacro: 1, price: parseEther('1'), verifiers: 3 })
    const victims = await killFinalizers(job.jobId)
    expect(victims.length).toBeLessThan(devnet.peers.length)
    expect(Number(await escrow.statusOf(job.jobId))).toBe(1) // Open
    const submitter = await waitFor(async () => {
      const events = await escrow.queryFilter(escrow.filters.ResultsSubmitted(job.jobId))
      const first = events[0] as unknown as { args: { submitter: string } } | undefined
      return first === undefined ? undefined : String(first.args.submitter).toLowerCase()
    }, { timeoutMs: 180_000, what: 'another peer to submit', intervalMs: 50 })
    expect(victims.map(walletOf)).not.toContain(submitter)
    // the victims come back only so that a verifier drawn among them can do its part (their journaled
    // finalization finds the job submitted and stops)
    for (const i of victims) await devnet.restartPeer(i)
    const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 180_000 })
      .catch(withHistory(devnet, job.jobId))
    expect(release.status).toBe('Released')
    expect(await escrow.queryFilter(escrow.filters.ResultsSubmitted(job.jobId))).toHaveLength(1)
    const outputs = await client.results(job.jobId, { fetchTimeoutMs: 20_000, timeoutMs: 60_000 })
    expect(outputs).toHaveLength(1)
  }, 420_000)

  it('a verifier killed between its commit and its reveal, restarted: it reveals with its journaled salt', async () => {
    // the tests before kill and restart peers: on a loaded machine one may have missed a duty and been paused by the
    // registry (its start resumes it), and a job with 3 verifiers needs 4 active nodes, else the peers leave it alone
    const registry = connect(devnet.deployment, provider).nodeRegistry
    for (const [i, p] of devnet.peers.entries()) {
      const info = await registry.nodeInfo(devnet.peerAccount(i).address)
      if (p.child.exitCode !== null || p.child.signalCode !== null || Boolean(info.paused)) await devnet.restartPeer(i)
    }
    await waitFor(async () => (await client.activeNodes()) >= 4, { timeoutMs: 60_000, what: '4 active nodes', intervalMs: 500 })
    const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 3, microJobsPerMacro: 4, price: parseEther('1'), verifiers: 3 })
    const committed = await waitFor(async () => {
      const events = await escrow.queryFilter(escrow.filters.VerificationCommitted(job.jobId))
      const first = events[0] as unknown as { args: { verifier: string } } | undefined
      return first === undefined ? undefined : String(first.args.verifier).toLowerCase()
    }, { timeoutMs: 180_000, what: 'a verifier to commit', intervalMs: 50 })
      .catch(withHistory(devnet, job.jobId))
    const victim = devnet.peers.findIndex((_, i) => walletOf(i) === committed)
    expect(victim).toBeGreaterThanOrEqual(0)
    devnet.peers[victim].kill('SIGKILL')
    await devnet.peers[victim].exited
    const revealedBefore = await escrow.queryFilter(escrow.filters.VerificationRevealed(job.jobId, committed))
    expect(revealedBefore).toHaveLength(0)
    await devnet.restartPeer(victim)

    const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 180_000 })
    expect(release.status).toBe('Released')
    const revealed = await escrow.queryFilter(escrow.filters.VerificationRevealed(job.jobId, committed))
    expect(revealed).toHaveLength(1)
  }, 420_000)
})
