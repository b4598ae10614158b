import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { createChainClient } from '@jobmesh/contracts'
import { publishProfile } from '@jobmesh/peer/jobs'
import { waitFor } from '@jobmesh/testkit'
import { rankQueued, verificationQueueCursor } from '@jobmesh/peer/observe'
import { resultCommitment } from '@jobmesh/peer/settlement'
import { keccak256 } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { run } from '../src/cli/program.js'
import { createJobClient } from '../src/index.js'
import { SLICING, cleanup, connectFlags, registerNode, setup, smallJob } from './helpers.js'
import type { Env } from './helpers.js'

afterEach(cleanup)

async function mined (p: Promise<{ wait(): Promise<unknown> }>): Promise<void> {
  await (await p).wait()
}

/** Account 2 submits (arbitrary) results and asks for verifiers; with too few idle eligible nodes the job is queued. */
async function submitAndQueue (env: Env, jobId: string): Promise<void> {
  const sub = env.contracts(2)
  const submitter = await env.wallet(2).getAddress()
  const root = keccak256('0x01')
  await mined(sub.jobEscrow.commitResults(jobId, resultCommitment(jobId, 0, root, '', submitter)))
  await mined(sub.jobEscrow.submitResults(jobId, root, '', []))
  await env.provider.send('evm_mine', [])
  await env.provider.send('evm_mine', [])
  await mined(sub.jobEscrow.selectVerifiers(jobId))
  expect(await sub.jobEscrow.isQueued(jobId)).toBe(true)
}

describe('describe on a job waiting in the verification queue', () => {
  it('says how many verifiers it waits for and its position among the queued jobs, higher-value tasks first', async () => {
    const env = await setup()
    // four 8 GB nodes: the submitter (never its own verifier) and three possible verifiers
    const gpu = keccak256(new TextEncoder().encode('any-gpu'))
    const stake = env.deployment.params.registry.minStake
    // the submitter stakes enough for the bonds of three jobs
    for (const i of [2, 3, 4, 5]) await registerNode(env, i, gpu, 8, i === 2 ? 10n ** 18n + stake : stake)
    const base = { ...smallJob(), blockSize: 4, slicing: SLICING, verifiers: 3 }
    // no node has 48 GB: both wait in the (48 GB, any model) group; the dearer one first
    const cheap48 = await env.client.submit({ ...base, price: 10n ** 15n, requirements: { minVramGb: 48 } })
    const dear48 = await env.client.submit({ ...base, price: 3n * 10n ** 15n, requirements: { minVramGb: 48 } })
    // 5 verifiers wanted, 3 eligible nodes idle: it waits in the (0 GB, any model) group
    const wide = await env.client.submit({ ...base, price: 2n * 10n ** 15n, verifiers: 5 })
    for (const job of [cheap48, dear48, wide]) await submitAndQueue(env, job.jobId)

    const stories = await Promise.all([dear48, wide, cheap48].map(async j => env.client.describe(j.jobId)))
    // a job the escrow does not know has no story: JobNotFoundError, as from status
    const missing = await env.client.describe('0x' + 'cd'.repeat(32)).catch((e: unknown) => e as Error)
    expect(missing.name).toBe('JobNotFoundError')
    expect(stories.map(s => s.phase)).toEqual(['verifying', 'verifying', 'verifying'])
    expect(stories[0].waitingFor).toBe('3 verifiers in the verification queue: position 1 of 3 (higher-value tasks first); 1 of 2 among the jobs needing the same VRAM and GPU model; all are drawn at once when enough eligible nodes are idle')
    // 5 verifiers besides its submitter need 6 nodes: with 4 registered the queue can never serve it, and the story says so
    expect(stories[1].waitingFor).toBe('more nodes: 3 are registered and active besides its submitter, and its 5 verifiers are drawn from those, so it cannot be drawn (0 of 5 so far) until 2 more join; if none does by the deadline the creator can refund')
    expect(stories[2].waitingFor).toBe('3 verifiers in the verification queue: position 3 of 3 (higher-value tasks first); 2 of 2 among the jobs needing the same VRAM and GPU model; all are drawn at once when enough eligible nodes are idle')

    // `jobmesh-dapp wait` on that job warns at once that it waits for nodes that are not there
    const err: string[] = []
    const waited = await run(['wait', wide.jobId, '--timeout', '1', ...await connectFlags(env)], { out: () => {}, err: (l) => err.push(l) })
    expect(waited).toBe(1)
    expect(err.join('\n')).toContain(`warning: 4 nodes are active (registered, not paused, exiting nor kicked out), job ${wide.jobId} with 5 verifiers needs 6`)

    // a long-lived reader (the dashboard's) sees the same queue, scanning only new blocks on later reads
    const cursor = verificationQueueCursor(createChainClient({ provider: env.provider, deployment: env.deployment }))
    const before = await cursor.read()
    expect([dear48, wide, cheap48].map(j => rankQueued(before, j.jobId)?.position)).toEqual([1, 2, 3])

    // the first in the queue leaves it (refunded once its deadline passed): the others move up
    await env.provider.send('evm_increaseTime', [7 * 24 * 3600])
    await env.provider.send('evm_mine', [])
    await env.client.refund(dear48.jobId)
    expect(await env.contracts(1).jobEscrow.isQueued(dear48.jobId)).toBe(false)
    const later = await cursor.read()
    expect(later.map(t => t.jobId).sort()).toEqual([wide.jobId, cheap48.jobId].map(id => id.toLowerCase()).sort())
    expect(rankQueued(later, wide.jobId)?.position).toBe(1)
    // past their deadlines no draw starts: the queued jobs can only be refunded, and every view says so (a QA pass of
    // 2026-12-03 read plain `Submitted` from status, queue advice from describe and the release wait's timeout)
    const after = await env.client.describe(cheap48.jobId)
    expect(after.phase).toBe('expired')
    expect(after.waitingFor).toBe(`nothing will happen: its deadline passed before any verifier was drawn (no draw starts after it); the creator can refund (jobmesh-dapp refund ${cheap48.jobId})`)
    const wait = await env.client.waitForRelease(cheap48.jobId, { timeoutMs: 10_000 }).catch((e: unknown) => e as Error)
    expect(wait.name).toBe('DeadlinePassedError')
    expect(wait.message).toContain('no verifier was drawn by its deadline')
    const waitErr: string[] = []
    expect(await run(['wait', cheap48.jobId, '--timeout', '20', ...await connectFlags(env)], { out: () => {}, err: (l) => waitErr.push(l) })).toBe(1)
    expect(waitErr.at(-1)).toBe(`DeadlinePassedError: job ${cheap48.jobId.toLowerCase()}: its results were submitted but no verifier was drawn by its ` +
      `deadline, so it cannot be released; refund it (jobmesh-dapp refund ${cheap48.jobId.toLowerCase()}, or the SDK's refund)`)
    expect(waitErr.join('\n')).not.toContain('warning:') // no advice about nodes joining
    expect(waitErr.join('\n')).not.toContain('drawn at once') // nor about verifiers to come
    const out: string[] = []
    expect(await run(['status', cheap48.jobId, ...await connectFlags(env)], { out: (l) => out.push(l), err: () => {} })).toBe(0)
    expect(out[0]).toBe(`status: Submitted (expired: its deadline passed before any verifier was drawn (no draw starts after it), so it can no longer be released; jobmesh-dapp refund ${cheap48.jobId} returns the fee)`)
    await env.client.refund(cheap48.jobId)
    expect((await env.client.status(cheap48.jobId)).status).toBe('Refunded')
  })
})

describe('describe on a job parked by a full verification queue', () => {
  it('says the queue is full of tasks worth more, the job keeps its results and what happens next', async () => {
    // a queue of one task
    const env = await setup({ deploy: { escrow: { queueMin: 1, alphaBps: 1 } } })
    const gpu = keccak256(new TextEncoder().encode('any-gpu'))
    const stake = env.deployment.params.registry.minStake
    for (const i of [2, 3, 4, 5]) await registerNode(env, i, gpu, 8, i === 2 ? 10n ** 18n + stake : stake)
    const base = { ...smallJob(), blockSize: 4, slicing: SLICING, verifiers: 3, requirements: { minVramGb: 48 } }
    const cheap = await env.client.submit({ ...base, price: 10n ** 15n })
    const dear = await env.client.submit({ ...base, price: 3n * 10n ** 15n })
    await submitAndQueue(env, cheap.jobId)
    await submitAndQueue(env, dear.jobId)
    // the dearer task took the one place: the cheaper one is parked, still Submitted, its fee still in the escrow
    const escrow = env.contracts(1).jobEscrow
    expect(await escrow.isQueued(cheap.jobId)).toBe(false)
    expect(Number(await escrow.statusOf(cheap.jobId))).toBe(2)
    const parked = await env.client.describe(cheap.jobId)
    expect(parked.phase).toBe('verifying')
    expect(parked.waitingFor).toBe('a place in the verification queue: it is full (1 job) of tasks worth more, so the job is parked; its submitter draws again every few blocks, and if no verifier is drawn by the deadline the creator can refund')
    expect((await env.client.describe(dear.jobId)).waitingFor).toContain('position 1 of 1')
  })
})

describe('the peers that can take a job, before it is submitted', () => {
  it('matchingPeers counts the known peers a job fits and says why the others do not; submit warns when fewer than k + 1 fit', async () => {
    const env = await setup()
    const gpu = keccak256(new TextEncoder().encode('any-gpu'))
    const stake = env.deployment.params.registry.minStake
    // k + 1 = 4 registered nodes (the job is not short of nodes), three of them known by their profiles
    for (const i of [2, 3, 4, 5]) await registerNode(env, i, gpu, 8, stake)
    // each node's signed profile, as its peer publishes it when it starts: 8 GB each, one of them an RTX 4090
    const models = ['cpu', 'cpu', 'RTX 4090']
    for (const [j, i] of [2, 3, 4].entries()) {
      await publishProfile({ docs: env.peerDocs, privateKey: await generateKeyPair('Ed25519') }, { address: await env.wallet(i).getAddress(), gpuModel: models[j], vramGb: 8 })
    }
    const big = await waitFor(async () => {
      const m = await env.client.matchingPeers({ minVramGb: 16 })
      return m.peers === 3 ? m : undefined
    }, { timeoutMs: 20_000, what: 'the three profiles at the client' })
    expect(big.matching).toBe(0)
    expect(big.summary).toBe('0 of 3 peers match (needs 16 GB VRAM): 3 have too little VRAM (3 x 8 GB; the job needs 16 GB)')
    const rtx = await env.client.matchingPeers({ gpuModel: 'RTX 4090' })
    expect(rtx.matching).toBe(1)

    // the CLI says so before it pays (a warning: the job is still submitted)
    const addr = env.peer.libp2p.getMultiaddrs().find(m => !m.toString().includes('/ws'))?.toString() ?? ''
    const err: string[] = []
    const files = { code: join(env.dir, 'job.wasm'), data: join(env.dir, 'data.bin') }
    const { code, data } = smallJob()
    await writeFile(files.code, code)
    await writeFile(files.data, data)
    const submit = (extra: string[]): string[] => ['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
      '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--detach', '--timeout', '1', '--force', ...extra]
    const flags = [...await connectFlags(env), '--bootstrap', addr]
    const out: string[] = []
    await run([...submit(['--min-vram', '16']), ...flags], { out: (l) => out.push(l), err: (l) => err.push(l) })
    expect(err).toContain('warning: no known peer can run this job: 0 of 3 peers match (needs 16 GB VRAM): 3 have too little VRAM (3 x 8 GB; the job needs 16 GB); it will not start unless such peers join')
    // and `wait` says why that job does not move
    const jobId = /jobId: (0x[0-9a-f]{64})/.exec(out.join('\n'))?.[1] ?? ''
    err.length = 0
    await run(['wait', jobId, '--timeout', '1', ...flags], { out: () => {}, err: (l) => err.push(l) })
    expect(err[0]).toBe(`warning: no known peer can run job ${jobId}: 0 of 3 peers match (needs 16 GB VRAM): 3 have too little VRAM (3 x 8 GB; ` +
      'the job needs 16 GB); it will not start unless such peers join')
    err.length = 0
    out.length = 0
    await run([...submit(['--gpu-model', 'RTX 4090']), ...flags], { out: (l) => out.push(l), err: (l) => err.push(l) })
    expect(err).toContain('warning: 1 of 3 peers matches (needs any VRAM, GPU RTX 4090): 2 have another GPU model (cpu; the job needs RTX 4090); ' +
      'this job needs 4 (its 3 verifiers are drawn among matching nodes besides its submitter): it will not be released unless more join')
    expect(err.join('\n')).not.toContain('whole number of') // 32 bytes: 8 whole blocks
    // data that ends in a short block: said before it pays (the QA pass's module failed on that MicroJob, after the fee)
    const short = join(env.dir, 'short.bin')
    await writeFile(short, data.subarray(0, 30))
    err.length = 0
    await run([...submit([]).map(a => a === files.data ? short : a), ...flags], { out: () => {}, err: (l) => err.push(l) })
    expect(err).toContain('warning: --data is 30 bytes, not a whole number of 4-byte blocks: its last block has 2 bytes, and a module that reads whole blocks ' +
      'fails on the MicroJob that gets it')
    // describe says the peers leave it alone until more such nodes join (it said a peer would start it)
    const rtxJob = /jobId: (0x[0-9a-f]{64})/.exec(out.join('\n'))?.[1] ?? ''
    expect((await env.client.describe(rtxJob)).waitingFor).toMatch(/^more nodes that fit it: 1 of 3 peers matches .*its submitter and its 3 verifiers must all be such nodes \(4 of them, 1 known\), so the peers leave it alone .* until 3 more join/)
  })

  it('describe of an open job whose bond no known node\'s free stake covers: the peers leave it alone, and it says so', async () => {
    const env = await setup()
    const gpu = keccak256(new TextEncoder().encode('any-gpu'))
    const stake = env.deployment.params.registry.minStake
    // the network peer is a registered node with the minimum stake, known by its signed profile
    await registerNode(env, 2, gpu, 8, stake, env.peer.privateKey)
    for (const i of [3, 4, 5]) await registerNode(env, i, gpu, 8, stake)
    await publishProfile({ docs: env.peerDocs, privateKey: env.peer.privateKey }, { address: await env.wallet(2).getAddress(), gpuModel: 'cpu', vramGb: 8 })
    await waitFor(async () => (await env.client.matchingPeers({})).peers === 1 ? true : undefined, { timeoutMs: 20_000, what: 'the profile at the client' })
    // its bond is 2 x the fee: twice the stake
    const dear = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: stake, verifiers: 3 })
    expect((await env.client.describe(dear.jobId)).waitingFor).toMatch(/^a node whose free stake covers its bond: submitting its results locks 0\.02 ETH \(from its fee\), the largest free stake among the 1 known node is 0\.01 ETH, so the peers leave it alone/)
  })

  it('describe from a client connected to no peer: what the peers know is not known there, said in a note; no advice to refund an announced job', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 }, { signal: AbortSignal.timeout(30_000) })
    // announced (the connected client sees it), then asked of a client with no bootstrap: it said "no peer has seen
    // it announced ... the creator takes the fee back with a refund"
    expect((await env.client.describe(job.jobId)).lines.some(l => l.startsWith('announced by '))).toBe(true)
    const alone = await createJobClient({ rpcUrl: env.anvil.rpcUrl, signer: env.anvil.accounts[3].privateKey, deployment: env.deployment })
    try {
      const story = await alone.describe(job.jobId, { timeoutMs: 2_000 })
      expect(story.phase).toBe('open')
      expect(story.waitingFor).toBe('not known here: this node is connected to no peer, so it cannot tell whether the peers saw the job announced or work on it (see the note)')
      expect(story.lines.filter(l => l.startsWith('note: '))).toEqual(['note: this node is connected to no peer: what the peers know of the job ' +
        '(its announcement, its progress, their profiles) is known here only as far as this node kept it from earlier connections'])
    } finally {
      await alone.stop()
    }
  })
})
