import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseEther } from 'ethers'
import { connect, createProvider } from '@jobmesh/contracts'
import { createJobClient } from '@jobmesh/dapp-sdk'
import { startDevnet } from '@jobmesh/peer'
import { submitMandelbrot } from '../../examples/src/index.js'
import type { JobClient } from '@jobmesh/dapp-sdk'
import type { Devnet } from '@jobmesh/peer'

const IMAGE = { width: 96, height: 48, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }

/** Polls `check` every 50 ms until it returns a value, or fails after `timeoutMs`. */
async function poll<T> (what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await check()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}

describe('restarts: a verifier that dies mid-duty resumes it (4 jobmesh processes)', () => {
  let devnet: Devnet
  let dir: string
  let client: JobClient
  let escrow: ReturnType<typeof connect>['jobEscrow']
  let provider: ReturnType<typeof createProvider>

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-e2e-restart-'))
    // a reveal window long enough for a verifier process to restart in it on a loaded machine
    devnet = await startDevnet({ dir: join(dir, 'net'), peers: 4, contracts: { escrow: { commitWindow: 10, revealWindow: 25 } } })
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

  it('a verifier killed between its commit and its reveal, restarted: it reveals with its journaled salt', async () => {
    const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 3, microJobsPerMacro: 4, price: parseEther('1'), verifiers: 2 })
    const committed = await poll('a verifier to commit', async () => {
      const events = await escrow.queryFilter(escrow.filters.VerificationCommitted(job.jobId))
      const first = events[0] as unknown as { args: { verifier: string } } | undefined
      return first === undefined ? undefined : String(first.args.verifier).toLowerCase()
    }, 180_000)
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
