import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDevnet } from '@jobmesh/peer/devnet'
import { connect, createProvider } from '@jobmesh/contracts'
import { encodeMandelbrotData, exampleWasmPath } from '../../examples/src/index.js'
import { runCli, startCli } from './cli.js'
import { peerStatus } from './helpers.js'
import { waitFor } from '@jobmesh/testkit'
import type { Devnet } from '@jobmesh/peer/devnet'

// 12 MicroJobs of 4 rows: small, so the job settles fast; every peer gets a share
const IMAGE = { width: 96, height: 48, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }
const JOB_FLAGS = ['--macro-jobs', '3', '--micro-per-macro', '4', '--blocks-per-micro', '4', '--block-size', '64', '--price', '0.5']

describe('submit and walk away: jobmesh-dapp against a devnet of 4 jobmesh processes', () => {
  let devnet: Devnet
  let dir: string
  let env: Record<string, string>
  let job: string[]

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-e2e-detach-'))
    devnet = await startDevnet({ dir: join(dir, 'net'), peers: 4, contracts: { escrow: { commitWindow: 6, revealWindow: 6 } } })
    const data = join(dir, 'mandelbrot.bin')
    await writeFile(data, encodeMandelbrotData(IMAGE, 1))
    // what `jobmesh devnet` prints, with every peer as a bootstrap (one of them is killed below)
    env = {
      JOBMESH_RPC_URL: devnet.anvil.rpcUrl,
      JOBMESH_DEPLOYMENT: devnet.deploymentFile,
      JOBMESH_BOOTSTRAP: devnet.peers.map(p => p.addresses.find(a => !a.includes('/ws')) ?? '').map((a, i) => a.includes('/p2p/') ? a : `${a}/p2p/${devnet.peers[i].peerId}`).join(','),
      JOBMESH_PRIVATE_KEY: devnet.dapp.privateKey
    }
    job = ['--code', exampleWasmPath('mandelbrot'), '--data', data, ...JOB_FLAGS]
  }, 120_000)

  afterAll(async () => {
    await devnet?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('a detached submit exits; the job settles; a fresh client gets every output, also after a producer is killed for good', async () => {
    const submitted = await runCli(['submit', ...job, '--detach', '--json'], env, 120_000)
    expect(submitted.stderr.join('\n')).not.toMatch(/Error/)
    expect(submitted.code).toBe(0)
    const summary = JSON.parse(submitted.stdout.at(-1) ?? '{}') as { jobId: string, holders: string[], detached: boolean }
    expect(summary.detached).toBe(true)
    // four registered peers: it left once two of them held the inputs (one node's word alone is no proof)
    expect(summary.holders.length).toBeGreaterThanOrEqual(2)
    const jobId = summary.jobId
    // the job was named before the funding transaction was sent
    expect(submitted.stderr[0]).toBe(`creating job ${jobId}...`)

    // the submitting process is gone: its helia was the only holder of code and data at upload time
    const waited = await runCli(['wait', jobId, '--timeout', '240', '--poll', '0.5', '--json'], env, 260_000)
    expect(waited.stderr.join('\n')).not.toMatch(/Error/)
    expect(waited.code).toBe(0)
    expect(JSON.parse(waited.stdout.at(-1) ?? '{}')).toMatchObject({ jobId, status: 'Released' })

    // a fresh client (own data dir, no state of the submitter) gets every output, each checked against the chain
    const fetchAll = async (name: string): Promise<{ signers: string[], files: Map<string, Buffer> }> => {
      const out = join(dir, name)
      const r = await runCli(['results', jobId, '--out', out, '--data-dir', join(dir, `${name}-client`), '--timeout', '90', '--fetch-timeout', '30', '--json'], env, 120_000)
      expect(r.stderr.join('\n')).not.toMatch(/Error/)
      expect(r.code).toBe(0)
      const doc = JSON.parse(r.stdout.at(-1) ?? '{}') as { outputs: Array<{ signer: string }> }
      const files = new Map<string, Buffer>()
      // beside the outputs, the folder names its job (.jobmesh-job)
      expect(await readFile(join(out, '.jobmesh-job'), 'utf8')).toBe(`${jobId.toLowerCase()}\n`)
      for (const f of await readdir(out)) if (f !== '.jobmesh-job') files.set(f, await readFile(join(out, f)))
      return { signers: doc.outputs.map(o => o.signer), files }
    }
    const first = await fetchAll('results-1')
    expect(first.files.size).toBe(12)

    // the peer that produced the most outputs dies for good: the replicas serve its outputs
    const counts = new Map<string, number>()
    for (const s of first.signers) counts.set(s, (counts.get(s) ?? 0) + 1)
    const [top] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]
    const victim = devnet.peers.find(p => p.peerId === top)
    expect(victim).toBeDefined()
    victim!.kill('SIGKILL')
    await victim!.exited
    const second = await fetchAll('results-2')
    expect([...second.files.keys()].sort()).toEqual([...first.files.keys()].sort())
    for (const [name, bytes] of first.files) expect(second.files.get(name)?.equals(bytes)).toBe(true)
  }, 420_000)

  it('an https:// input whose name resolves to loopback is refused before anything is paid (the CLI reads it with undici, loaded at that read)', async () => {
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    try {
      const sentBefore = await provider.getTransactionCount(devnet.dapp.address, 'pending')
      const r = await runCli(['submit', ...job.slice(2), '--code', 'https://localhost/job.wasm', '--json'], env, 60_000)
      const said = r.stderr.join('\n')
      expect(said).toContain('https://localhost/job.wasm')
      // the first refused address in the resolver's order (::1 where /etc/hosts maps it first)
      expect(said).toMatch(/localhost resolves to (127\.0\.0\.1|::1), not a public address/)
      expect(said).not.toMatch(/TypeError|not a constructor/)
      expect(r.code, said).toBe(1)
      expect(await provider.getTransactionCount(devnet.dapp.address, 'pending')).toBe(sentBefore)
    } finally {
      provider.destroy()
    }
  }, 90_000)

  it('Ctrl-C during submit: before anything is sent and once submitted it exits within 2 s; while funding it finishes the submission first; too few nodes for k + 1 is a warning with --force', async () => {
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    const { jobEscrow } = connect(devnet.deployment, provider)
    try {
      // SIGINT when the given line appears; k = 5 needs 6 registered nodes, the devnet has 4
      for (const [at, k] of [[/^uploading\.\.\./, '5'], [/^creating job 0x/, '3'], [/^announcing\.\.\./, '3'], [/^inputs held by/, '3']] as const) {
        const sentBefore = await provider.getTransactionCount(devnet.dapp.address, 'pending')
        // too few nodes for k + 1 is refused before anything is sent, unless --force (then a warning)
        const p = startCli(['submit', ...job, '--verifiers', k, ...(k === '5' ? ['--force'] : [])], env)
        await p.line(at, 60_000)
        const sent = Date.now()
        p.child.kill('SIGINT')
        const code = await p.exited
        const tookMs = Date.now() - sent
        const lines = p.stderr.filter(l => l.startsWith('interrupted'))
        const said = lines.at(-1) ?? ''
        expect(code, `${at}: ${p.stderr.join('\n')}`).toBe(130)
        if (k === '5') expect(p.stderr.some(l => l.startsWith('warning: 4 nodes are active (registered, not paused, exiting nor kicked out), this job with 5 verifiers needs 6'))).toBe(true)
        const jobId = /0x[0-9a-f]{64}/.exec(said)?.[0]
        if (/^interrupted: no job was created/.test(said)) {
          // before the funding transaction (the upload was still running): at once, and nothing was paid: the
          // DApp's wallet sent no transaction at all
          expect(at.source.startsWith('^uploading'), `${at}: ${said}`).toBe(true)
          expect(tookMs, `${at}: exit took ${tookMs} ms`).toBeLessThan(2_000)
          expect(p.stdout.some(l => l.startsWith('jobId:'))).toBe(false)
          expect(await provider.getTransactionCount(devnet.dapp.address, 'pending')).toBe(sentBefore)
          continue
        }
        // from the funding transaction on the job is paid: it is finished (funded, announced, its inputs held by a
        // peer), never left half submitted; once submitted, the exit is at once
        expect(said, `${at}: ${p.stderr.join('\n')}`).toMatch(/^interrupted: job 0x[0-9a-f]{64} is funded and goes on without this process/)
        if (at.source.startsWith('^inputs')) {
          expect(lines).toHaveLength(1)
          expect(tookMs, `${at}: exit took ${tookMs} ms`).toBeLessThan(2_000)
        } else {
          expect(lines[0], `${at}: ${p.stderr.join('\n')}`).toMatch(/^interrupted: finishing the submission of job 0x[0-9a-f]{64} so that its fee is not stranded/)
        }
        // what it says is true: funded, and announced (the peers know the job)
        await fundedAndKnown(jobEscrow, jobId, `${at}: ${said}`)
      }
    } finally {
      provider.destroy()
    }
  }, 180_000)

  /** The job is funded on chain and a peer still running knows it (the first test killed one for good). */
  async function fundedAndKnown (jobEscrow: ReturnType<typeof connect>['jobEscrow'], jobId: string | undefined, context: string): Promise<void> {
    expect(jobId, context).toBeDefined()
    expect(Number(await jobEscrow.statusOf(jobId ?? '')), context).not.toBe(0)
    const live = devnet.peers.find(q => q.child.exitCode === null && q.child.signalCode === null)
    expect(live).toBeDefined()
    await waitFor(async () => (await peerStatus(live?.dataDir ?? '')).jobs.some(j => j.jobId.toLowerCase() === jobId),
      { timeoutMs: 30_000, what: `a running peer to know job ${jobId ?? ''}`, intervalMs: 500 })
  }

  it('SIGTERM during submit (kill, a service manager) is Ctrl-C: while announcing it finishes the submission, then exits with 143', async () => {
    const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
    const { jobEscrow } = connect(devnet.deployment, provider)
    try {
      const p = startCli(['submit', ...job, '--verifiers', '3'], env)
      await p.line(/^announcing\.\.\./, 60_000)
      p.child.kill('SIGTERM')
      const code = await p.exited
      const lines = p.stderr.filter(l => l.startsWith('interrupted'))
      const said = lines.at(-1) ?? ''
      // not killed by the signal (exit code null): handled, and ended with 128 + SIGTERM
      expect(code, p.stderr.join('\n')).toBe(143)
      expect(lines[0], p.stderr.join('\n')).toMatch(/^interrupted: finishing the submission of job 0x[0-9a-f]{64} so that its fee is not stranded/)
      expect(said, p.stderr.join('\n')).toMatch(/^interrupted: job 0x[0-9a-f]{64} is funded and goes on without this process/)
      // funded, and announced: a running peer knows the job
      await fundedAndKnown(jobEscrow, /0x[0-9a-f]{64}/.exec(said)?.[0], said)
    } finally {
      provider.destroy()
    }
  }, 120_000)
})
