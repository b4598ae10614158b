import { open } from 'node:fs/promises'
import { createServer, request } from 'node:http'
import { join } from 'node:path'
import { unixfs } from '@helia/unixfs'
import { JobAnnouncement, INDEX_JOBS_MAP, recordVerifier } from '@jobmesh/peer/coord'
import { DEFAULT_MAX_CODE_BYTES } from '@jobmesh/peer/executor'
import { MAX_MICROJOB_INPUT_BYTES } from '@jobmesh/peer/protocol'
import { indexDocName } from '@jobmesh/peer/crdt'
import { ANNOUNCEMENT_DOMAIN } from '@jobmesh/peer/jobs'
import { startReplicationServer } from '@jobmesh/peer/replication'
import { createNode } from '@jobmesh/peer/node'
import { createContentStore, jobContentBounds, rawOutputCid } from '@jobmesh/peer/storage'
import { MaxUint256, VoidSigner, ZeroAddress, id } from 'ethers'
import { CID } from 'multiformats/cid'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_PRICING, createEscrowClient, createJobClient, jobTree, sliceJob, taskValue } from '../src/index.js'
import { buildSpec, draftSpec } from '../src/spec.js'
import { SLICING, cleanup, lieAboutHolding, registerNode, serveInputs, setup, smallJob } from './helpers.js'
import type { AddressInfo } from 'node:net'
import type { JobmeshNode } from '@jobmesh/peer/node'
import type { InvalidJobError, JobIssue, SubmitInput, SubmitStage } from '../src/index.js'
import type { ContentSizes } from '../src/limits.js'
import type * as Y from 'yjs'

afterEach(cleanup)

async function cat (fs: ReturnType<typeof unixfs>, uri: string): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  for await (const p of fs.cat(CID.parse(uri.slice('ipfs://'.length)), { signal: AbortSignal.timeout(20_000) })) parts.push(p)
  return new Uint8Array(Buffer.concat(parts))
}

async function waitForKey (map: Y.Map<Uint8Array>, key: string, signal: AbortSignal): Promise<Uint8Array> {
  const found = map.get(key)
  if (found !== undefined) return found
  return new Promise((resolve, reject) => {
    const observer = (): void => {
      const v = map.get(key)
      if (v !== undefined) { map.unobserve(observer); resolve(v) }
    }
    map.observe(observer)
    signal.addEventListener('abort', () => { map.unobserve(observer); reject(signal.reason) }, { once: true })
  })
}

/** A file of `size` bytes that takes no room (sparse): what `submit` sizes by stat before it reads anything. */
async function sparseFile (path: string, size: number): Promise<string> {
  const file = await open(path, 'w')
  await file.truncate(size)
  await file.close()
  return path
}

describe('spec checks against what the peers run and the escrow stores (no chain)', () => {
  const creator = '0x' + '11'.repeat(20)
  const now = Date.now()
  // data given as a URI: blockCount named; 2 blocks of 4 bytes per MicroJob
  const CID_URI = 'ipfs://bafkreie77t75kq2m2s4stvmw5pmalvhsgpn3lgjqg2d5ec7bomoxwpfeie'
  const base: SubmitInput = { code: CID_URI, data: `${CID_URI}/data.bin`, blockSize: 4, blockCount: 8, slicing: SLICING, price: 10n ** 15n, verifiers: 3 }
  /** The issues of `base` with `over` and local content of `sizes`, as `submit` validates it before the upload ([] when valid). */
  const issues = (over: Partial<SubmitInput>, sizes: ContentSizes = {}): JobIssue[] => {
    const input = { ...base, ...over }
    try {
      buildSpec(draftSpec(input, creator, sizes, now), 'ipfs://code', 'ipfs://data', input.model === undefined ? undefined : 'ipfs://model')
      return []
    } catch (err) {
      expect((err as Error).name).toBe('InvalidJobError')
      return (err as InvalidJobError).issues
    }
  }
  const paths = (over: Partial<SubmitInput>, sizes?: ContentSizes): string[] => issues(over, sizes).map(i => i.path)

  it('a model that does not fit a MicroJob\'s input with its blocks (u32 length ‖ model ‖ blocks): issue on model', () => {
    const model = new Uint8Array(0)
    // 4 + model + 2 x 4 bytes of blocks: exactly the peers' limit is taken, a byte more is not
    expect(paths({ model }, { model: MAX_MICROJOB_INPUT_BYTES - 12 })).toEqual([])
    const over = issues({ model }, { model: MAX_MICROJOB_INPUT_BYTES - 11 })
    expect(over).toEqual([{ path: 'model', message: expect.stringContaining(`peers read at most ${MAX_MICROJOB_INPUT_BYTES} bytes`) }])
    // an empty model file: refused, not paid for and failed on every peer
    expect(issues({ model }, { model: 0 })).toEqual([{ path: 'model', message: expect.stringMatching(/^the model is empty \(0 bytes\)/) }])
  })

  it('a field that is no field of a job (a typo would pay for another job): an issue naming it and the field it likely misspells', () => {
    expect(issues({ requirments: { minVramGb: 64 } } as unknown as Partial<SubmitInput>))
      .toEqual([{ path: 'requirments', message: 'unknown field (did you mean "requirements"?): not part of a job' }])
    expect(issues({ frobnicate: true } as unknown as Partial<SubmitInput>))
      .toEqual([{ path: 'frobnicate', message: 'unknown field: not part of a job' }])
    // the estimate's fields are copied one by one: a misspelt one was dropped, and the default hint ran
    expect(issues({ estimate: { secondsPerMicrojob: 20 } } as unknown as Partial<SubmitInput>))
      .toContainEqual({ path: 'estimate.secondsPerMicrojob', message: 'unknown field (did you mean "secondsPerMicroJob"?): not part of a job' })
    // inside requirements and slicing: once each, with the hint (the validator's bare "Unrecognized key" came instead)
    expect(issues({ requirements: { minVram: 8 } } as unknown as Partial<SubmitInput>))
      .toEqual([{ path: 'requirements.minVram', message: 'unknown field (did you mean "minVramGb"?): not part of a job' }])
    expect(issues({ requirements: { minVramGb: 8, gpu: 'RTX 4090' } } as unknown as Partial<SubmitInput>))
      .toEqual([{ path: 'requirements.gpu', message: 'unknown field (did you mean "gpuModel"?): not part of a job' }])
    expect(issues({ slicing: { ...base.slicing, blocksPerMicros: 1 } } as unknown as Partial<SubmitInput>))
      .toEqual([{ path: 'slicing.blocksPerMicros', message: 'unknown field (did you mean "blocksPerMicro"?): not part of a job' }])
    // an empty GPU model: said in words (the validator's "Too small: expected string to have >=1 characters" came)
    for (const gpuModel of ['', '   ']) {
      expect(issues({ requirements: { minVramGb: 0, gpuModel } }))
        .toEqual([{ path: 'requirements.gpuModel', message: 'is empty: name a GPU model, or leave it out for any (jobmesh-dapp submit: no --gpu-model)' }])
    }
    // "Any" is not every GPU model: it is the model of nodes that name none (a job asking for it excluded the others)
    for (const gpuModel of ['Any', 'any']) {
      expect(issues({ requirements: { minVramGb: 0, gpuModel } }))
        .toEqual([{ path: 'requirements.gpuModel', message: '"Any" is the model of nodes that name no GPU, not every model: leave it out for any GPU model (jobmesh-dapp submit: no --gpu-model)' }])
    }
    // a GPU model alone: any VRAM, as the CLI's --gpu-model alone (it gave two issues on minVramGb)
    expect(issues({ requirements: { gpuModel: 'RTX 4090' } } as unknown as Partial<SubmitInput>)).toEqual([])
    // every documented field, given, is known
    expect(issues({ estimate: { secondsPerMicroJob: 2 }, requirements: { minVramGb: 0 }, seed: 1n, nonce: 2n, deadlineAfterMs: 3_600_000, verification: 'full' })).toEqual([])
  })

  it('an input of none of the forms content takes (an untyped caller): one issue naming the forms', () => {
    expect(issues({ data: 5 as never, blockCount: undefined })).toEqual([{ path: 'data', message: 'data must be bytes (a Uint8Array), a file path, a URI, or { uri }: got a number' }])
    expect(issues({ code: { foo: 1 } as never })[0]).toEqual({ path: 'code', message: 'code must be bytes (a Uint8Array), a file path, a URI, or { uri }: got an object without a uri string' })
    expect(paths({ model: [1, 2] as never })).toContain('model')
    // a URI the peers cannot parse: refused before the upload (the CLI said `uploading...` first)
    expect(issues({ data: 'ipfs://notacid' })).toEqual([{ path: 'data', message: expect.stringMatching(/^data ipfs:\/\/notacid is not a content URI the peers read: /) }])
    expect(paths({ code: { uri: 'https://' } })).toEqual(['code'])
  })

  it('empty data: one issue on data, not also the validator\'s on the block count it makes 0', () => {
    expect(issues({ blockCount: undefined }, { data: 0 })).toEqual([{ path: 'data', message: 'data is empty' }])
    // a block count the local data does not have: one issue, the slicing weighed against the data's own blocks (a second
    // line said "the data has 5 blocks")
    expect(issues({ blockCount: 5 }, { data: 32 })).toEqual([{ path: 'blockCount', message: 'data of 32 bytes has 8 blocks of 4 bytes, not 5' }])
  })

  it('code larger than the peers fetch: issue on code', () => {
    expect(paths({}, { code: DEFAULT_MAX_CODE_BYTES })).toEqual([])
    expect(issues({}, { code: DEFAULT_MAX_CODE_BYTES + 1 })).toEqual([{ path: 'code', message: expect.stringContaining(`larger than the ${DEFAULT_MAX_CODE_BYTES} bytes (64 MiB) peers fetch`) }])
  })

  it('an estimate beyond the peers\' per-run limit: issue on estimate.secondsPerMicroJob naming the limit', () => {
    expect(paths({ estimate: { secondsPerMicroJob: 30 } })).toEqual([])
    for (const secondsPerMicroJob of [30.5, 600, 2 ** 32, 2 ** 53]) {
      // one issue, the peers' limit (a value too wide for the escrow's uint32 is beyond it too)
      expect(issues({ estimate: { secondsPerMicroJob } }), String(secondsPerMicroJob)).toEqual([{
        path: 'estimate.secondsPerMicroJob',
        message: expect.stringMatching(/outruns the peers' per-run limit of 30 s: the peers stop every run after that long/)
      }])
    }
  })

  it('an output bound per MicroJob goes into the spec as given; beyond 64 MiB it is an issue on estimate.maxOutputBytes', () => {
    const spec = buildSpec(draftSpec({ ...base, estimate: { maxOutputBytes: 4096 } }, creator, {}, now), 'ipfs://code', 'ipfs://data')
    expect(spec.estimate).toEqual({ secondsPerMicroJob: expect.any(Number), maxOutputBytes: 4096 })
    expect(buildSpec(draftSpec(base, creator, {}, now), 'ipfs://code', 'ipfs://data').estimate.maxOutputBytes).toBeUndefined()
    expect(issues({ estimate: { maxOutputBytes: 64 * 1024 * 1024 + 1 } })).toEqual([{
      path: 'estimate.maxOutputBytes', message: expect.stringContaining('at most 67108864 bytes (64 MiB)')
    }])
  })

  it('values wider than the escrow\'s fields: uint32 minVramGb and microJobsPerMacro, uint256 nonce', () => {
    expect(paths({ requirements: { minVramGb: 2 ** 32 - 1 }, nonce: MaxUint256 })).toEqual([])
    expect(issues({ requirements: { minVramGb: 2 ** 32 } })).toEqual([{ path: 'requirements.minVramGb', message: 'must be at most 4294967295 GB: the escrow stores a uint32' }])
    for (const nonce of [-1n, MaxUint256 + 1n, 5 as unknown as bigint]) {
      expect(issues({ nonce }), String(nonce)).toEqual([{ path: 'nonce', message: expect.stringContaining('must be a uint256') }])
    }
    // one MacroJob of 2^32 MicroJobs of one block each: a slicing that covers its blocks, but no escrow stores the count
    // (and more MicroJobs than a job may have, MAX_MICROJOBS_PER_JOB)
    expect(paths({ blockSize: 1, blockCount: 2 ** 32, slicing: { macroJobs: 1, microJobsPerMacro: 2 ** 32, blocksPerMicro: 1 } })).toEqual(['slicing', 'slicing.microJobsPerMacro'])
  })
})

describe('submit', () => {
  it('eight concurrent submits on one client all succeed (one nonce sequence)', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const jobs = await Promise.all(Array.from({ length: 8 }, async () =>
      env.client.submit({ code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 }, { signal: AbortSignal.timeout(60_000) })))
    expect(new Set(jobs.map(j => j.jobId)).size).toBe(8)
    for (const j of jobs) expect((await env.client.status(j.jobId)).status).toBe('Open')
  })

  it('a read-only client (a VoidSigner) reads, but a submit or a refund is refused before anything is uploaded or sent', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })
    const reader = await createJobClient({ rpcUrl: env.anvil.rpcUrl, signer: new VoidSigner(ZeroAddress), deployment: env.deployment })
    try {
      expect((await reader.status(job.jobId)).status).toBe('Open')
      const stages: SubmitStage[] = []
      const refused = await reader.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 }, { onProgress: (p) => stages.push(p.stage) })
        .catch((e: unknown) => e as Error)
      expect(refused.name).toBe('InvalidConfigError')
      expect(refused.message).toMatch(/^submitting a job needs a signer that signs: this client's signer is a VoidSigner/)
      expect(stages).toEqual([])
      const refund = await reader.refund(job.jobId).catch((e: unknown) => e as Error)
      expect([refund.name, refund.message]).toEqual(['InvalidConfigError', expect.stringMatching(/^a refund needs a signer that signs/)])
      // made without a bootstrap peer, it reaches nobody: its failed fetch says that, not that the job was never announced
      const results = await reader.results(job.jobId, { timeoutMs: 10_000, fetchTimeoutMs: 500 }).catch((e: unknown) => e as Error)
      expect([results.name, results.message]).toEqual(['TimeoutError', expect.stringMatching(/could not be fetched within 500 ms: this client is connected to no peer/)])
      // the whole download's time out too
      const overall = await reader.results(job.jobId, { timeoutMs: 300, fetchTimeoutMs: 5_000 }).catch((e: unknown) => e as Error)
      expect([overall.name, overall.message]).toEqual(['TimeoutError', expect.stringMatching(/not complete within 300 ms: this client is connected to no peer/)])
    } finally {
      await reader.stop()
    }
  })

  it('uploads code and data, creates the job on chain and announces it', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const index = (await env.peerDocs.open(indexDocName(), { signal: AbortSignal.timeout(10_000) })).getMap<Uint8Array>(INDEX_JOBS_MAP)
    const stages: SubmitStage[] = []
    const job = await env.client.submit({ code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 }, {
      onProgress: (p) => stages.push(p.stage),
      signal: AbortSignal.timeout(30_000)
    })
    expect(stages).toEqual(['uploading', 'creating', 'announcing', 'replicating', 'done'])
    expect(job.microJobs).toHaveLength(4)
    expect(job.spec.blockCount).toBe(8)

    // another node fetches code and data by CID over bitswap
    const fs = unixfs(env.peer.helia)
    expect(await cat(fs, job.spec.codeUri)).toEqual(code)
    expect(await cat(fs, job.spec.dataUri)).toEqual(data)

    // on chain: event, status Open, jobRoot of the protocol core
    const escrow = env.contracts(0).jobEscrow
    const events = await escrow.queryFilter(escrow.filters.JobCreated(job.jobId))
    expect(events).toHaveLength(1)
    expect(events[0].transactionHash).toBe(job.txHash)
    const onChain = await escrow.jobs(job.jobId)
    expect(Number(onChain.status)).toBe(1)
    expect(onChain.jobRoot).toBe(jobTree(sliceJob(job.spec, job.jobId).microJobs).root)
    expect(onChain.creator).toBe(env.client.address)
    expect((await env.client.status(job.jobId)).status).toBe('Open')
    // one task value: the protocol core's from the network's pricing = the escrow's
    expect(job.taskValue).toBe(taskValue(10n ** 15n, 4, DEFAULT_PRICING))
    expect(await escrow.taskValue(job.jobId)).toBe(job.taskValue)
    expect(events[0].args.taskValue).toBe(job.taskValue)

    // the peer's index doc holds the signed announcement
    const record = await waitForKey(index, job.jobId, AbortSignal.timeout(20_000))
    const verified = recordVerifier().verify(record, ANNOUNCEMENT_DOMAIN)
    expect(verified?.signer).toBe(env.client.node.peerId.toString())
    const a = JobAnnouncement.decode(verified!.payload)
    expect(a.specCid).toBe(job.specCid)
    expect(a.microJobs).toBe(4)
    expect(a.value).toBe(Number(job.taskValue))
  })

  it('uploads a model given as bytes: it becomes requirements.modelId (ipfs://) and another node fetches it', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const model = new TextEncoder().encode('weights of a tiny model')
    const job = await env.client.submit({ code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3, model },
      { signal: AbortSignal.timeout(30_000) })
    expect(job.spec.requirements.modelId).toMatch(/^ipfs:\/\//)
    expect(await cat(unixfs(env.peer.helia), job.spec.requirements.modelId ?? '')).toEqual(model)
    // named twice, or at an address peers cannot fetch by CID: refused before anything is uploaded or paid
    for (const bad of [{ model, requirements: { minVramGb: 0, modelId: 'sdxl' } }, { model: 'https://example.org/weights.bin' }]) {
      const err = await env.client.submit({ code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3, ...bad })
        .catch((e: unknown) => e as Error & { issues: Array<{ path: string }> })
      expect(err.name).toBe('InvalidJobError')
      expect(err.issues.map(i => i.path)).toContain('model')
    }
    expect(await env.contracts(0).jobEscrow.queryFilter(env.contracts(0).jobEscrow.filters.JobCreated())).toHaveLength(1)
  })

  it('values a job by the deployed escrow\'s pricing parameters, not by the creator\'s run-time hint', async () => {
    const pricing = { overheadMs: 5_000, msPerMicroJob: 250 }
    const env = await setup({ deploy: { escrow: pricing } })
    const { code, data } = smallJob()
    const price = 10n ** 15n + 7n
    const job = await env.client.submit({ code, data, blockSize: 4, slicing: SLICING, price, verifiers: 3, estimate: { secondsPerMicroJob: 30 } },
      { signal: AbortSignal.timeout(30_000) })
    expect(job.taskValue).toBe(price * 1000n / (5_000n + 4n * 250n))
    expect(job.taskValue).toBe(taskValue(price, 4, pricing))
    expect(await env.contracts(0).jobEscrow.taskValue(job.jobId)).toBe(job.taskValue)
  })

  it('lists every bad field of an invalid job', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const err = await env.client.submit({
      code,
      data,
      blockSize: 4,
      slicing: { macroJobs: 0, microJobsPerMacro: 2, blocksPerMicro: 2 },
      price: 0n,
      verifiers: 0,
      requirements: { minVramGb: -1 },
      estimate: { secondsPerMicroJob: 0 },
      deadline: Date.now() - 1000
    }).catch((e: unknown) => e as Error & { issues: Array<{ path: string }> })
    expect(err.name).toBe('InvalidJobError')
    const paths = err.issues.map(i => i.path).sort()
    expect(paths).toEqual(expect.arrayContaining([
      'deadline', 'estimate.secondsPerMicroJob', 'price', 'requirements.minVramGb', 'slicing.macroJobs', 'verifiers'
    ]))
    // nothing was created
    expect(await env.contracts(0).jobEscrow.queryFilter(env.contracts(0).jobEscrow.filters.JobCreated())).toHaveLength(0)
  })

  it('a price of 0 or less: one issue, that it must be positive (not also a fee below the escrow\'s minimum)', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    for (const price of [-5n, 0n]) {
      const err = await env.client.submit({ code, data, blockSize: 4, slicing: SLICING, price, verifiers: 3 }).catch((e: unknown) => e as InvalidJobError)
      expect(err.name).toBe('InvalidJobError')
      expect(err.issues.map(i => [i.path, i.message])).toEqual([['price', 'price must be positive']])
    }
  })

  it('refuses a submission with missing parts (as from JavaScript, untyped) with InvalidJobError naming each, not a TypeError', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const whole = { code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 }
    const without = async (...keys: string[]): Promise<Error & { issues?: Array<{ path: string }> }> => {
      const input: Record<string, unknown> = { ...whole }
      for (const k of keys) delete input[k]
      return await env.client.submit(input as never).then(() => new Error('submitted'), (e: unknown) => e as Error)
    }
    for (const [keys, paths] of [
      [['slicing'], ['slicing']],
      [['code'], ['code']],
      [['data'], ['data']],
      [['price', 'blockSize'], ['blockSize', 'price']]
    ] as const) {
      const err = await without(...keys)
      expect(err.name, `without ${keys.join(', ')}: ${err.message}`).toBe('InvalidJobError')
      expect(err.issues?.map(i => i.path.split('.')[0]).filter(p => (paths as readonly string[]).includes(p)).sort(), keys.join(', ')).toEqual([...new Set(paths)])
    }
    for (const input of [null, undefined, 'a job']) {
      expect((await env.client.submit(input as never).catch((e: unknown) => e as Error)).name).toBe('InvalidJobError')
    }
    // a deadline the peers would never work before (they stop 3 minutes ahead of it): refused, not funded
    const soon = await env.client.submit({ ...whole, deadline: Date.now() + 60_000 }).catch((e: unknown) => e as Error & { issues: Array<{ path: string, message: string }> })
    expect(soon.name).toBe('InvalidJobError')
    expect(soon.issues).toEqual([{ path: 'deadline', message: expect.stringMatching(/^deadline is less than 3 minutes away: the peers stop working on a job 3 minutes before its deadline/) }])
    // a deadline 5 s past the margin at the start, and an upload that takes 10 s of the chain's clock (the clock the
    // escrow goes by moved on at its start): checked again before paying, refused
    const chainNow = (await env.provider.getBlock('latest'))!.timestamp * 1000
    const provider = env.provider
    let uploadSeconds = 0
    const getBlock = provider.getBlock.bind(provider)
    const clock = vi.spyOn(provider, 'getBlock').mockImplementation(async (...args: Parameters<typeof provider.getBlock>) => {
      const block = await getBlock(...args)
      return block === null ? null : Object.assign(Object.create(Object.getPrototypeOf(block) as object) as typeof block, block, { timestamp: block.timestamp + uploadSeconds })
    })
    const slowClient = await createJobClient({ provider, signer: env.anvil.accounts[1].privateKey, deployment: env.deployment })
    try {
      const slow = await slowClient.submit({ ...whole, deadline: chainNow + 185_000 }, {
        onProgress: (p) => { if (p.stage === 'uploading') uploadSeconds = 10 }
      }).catch((e: unknown) => e as Error & { issues: Array<{ path: string, message: string }> })
      expect(slow.name).toBe('InvalidJobError')
      expect(slow.issues).toEqual([{ path: 'deadline', message: expect.stringMatching(/^deadline is less than 3 minutes away: .* \(after the upload; nothing was paid\)$/) }])
    } finally {
      clock.mockRestore()
      await slowClient.stop()
    }
    expect(await env.contracts(0).jobEscrow.queryFilter(env.contracts(0).jobEscrow.filters.JobCreated())).toHaveLength(0)
  })

  it('reads the deadline against the chain\'s clock, not this machine\'s: a chain ahead refuses a deadline in its past before any upload', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const whole = { code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 }
    // the chain runs two hours ahead of this machine
    await env.provider.send('evm_increaseTime', [2 * 3600])
    await env.provider.send('evm_mine', [])
    const nonce = await env.provider.getTransactionCount(env.client.address)
    const stages: string[] = []
    // 30 minutes from this machine's now is 90 minutes in the chain's past
    const late = await env.client.submit({ ...whole, deadline: Date.now() + 30 * 60_000 }, { onProgress: (p) => stages.push(p.stage) })
      .catch((e: unknown) => e as Error & { issues: Array<{ path: string, message: string }> })
    expect(late.name).toBe('InvalidJobError')
    expect(late.issues).toEqual([{ path: 'deadline', message: 'deadline is in the past' }])
    expect(stages).toEqual([])
    expect(await env.provider.getTransactionCount(env.client.address)).toBe(nonce)
    // a deadline after the chain's now (the default, or deadlineAfterMs) is taken and created
    const chainNow = (await env.provider.getBlock('latest'))!.timestamp
    const job = await env.client.submit({ ...whole, deadlineAfterMs: 30 * 60_000 })
    expect((await env.client.status(job.jobId)).deadline).toBe(chainNow + 30 * 60)
    const byDefault = await env.client.submit(whole)
    expect((await env.client.status(byDefault.jobId)).deadline).toBeGreaterThanOrEqual(chainNow + 24 * 3600)
  })

  it('with requirePeer, refuses before any upload unless a connected peer can hold the inputs (speaks the replication protocol)', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const whole = { code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 }
    const nonce = await env.provider.getTransactionCount(env.client.address)
    // the client's one peer is a plain node: connected, but it holds no job inputs
    const stages: string[] = []
    const refused = await env.client.submit(whole, { requirePeer: true, peerWaitMs: 300, onProgress: (p) => stages.push(p.stage) })
      .catch((e: unknown) => e as Error & { connected: number })
    expect(refused.name).toBe('NoPeerConnectedError')
    expect(refused.connected).toBe(1)
    expect(refused.message).toMatch(/^no peer can hold this job's code and data: 1 peer is connected but none is a jobmesh peer that holds job inputs \(within 300 ms\)/)
    expect(stages).toEqual([])
    expect(await env.provider.getTransactionCount(env.client.address)).toBe(nonce)
    // once the peer serves the replication protocol (identify tells the client), the job is taken and its inputs
    // held; but a "held" carries no proof, and the peer is no registered node: it does not count
    const server = await serveInputs(env.peer)
    try {
      const unproven = await env.client.submit(whole, { requirePeer: true, signal: AbortSignal.timeout(30_000) })
      expect(unproven.holders).toEqual([])
      // registered (its own PeerId, staked), the same peer's "held" counts
      await registerNode(env, 5, id('any-gpu'), 8, env.deployment.params.registry.minStake, env.peer.privateKey)
      const job = await env.client.submit(whole, { requirePeer: true, signal: AbortSignal.timeout(30_000) })
      expect(job.holders).toEqual([env.peer.peerId.toString()])
      // leaving the network (its exit requested: its stake withdrawable after the cooldown, maybe before the job is
      // done), its "held" does not count any more
      await (await env.contracts(5).nodeRegistry.requestExit()).wait()
      const leaving = await env.client.submit(whole, { requirePeer: true, signal: AbortSignal.timeout(30_000) })
      expect(leaving.holders).toEqual([])
      // it did hold them (it refused nothing): its word is what no longer counts
      expect(leaving.refusals).toEqual([])
    } finally {
      await server.stop()
    }
  })

  it('with requireActiveNodes, refuses before any upload or payment while the chain counts fewer than k + 1 active nodes', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const whole = { code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 }
    const nonce = await env.provider.getTransactionCount(env.client.address)
    const refusal = async (): Promise<{ err: Error & { active?: number, needed?: number }, stages: string[] }> => {
      const stages: string[] = []
      const err = await env.client.submit(whole, { requireActiveNodes: true, onProgress: (p) => stages.push(p.stage) })
        .then(() => new Error('submitted'), (e: unknown) => e as Error)
      return { err, stages }
    }
    const none = await refusal()
    expect(none.err.name).toBe('JobCannotFinishError')
    expect([none.err.active, none.err.needed]).toEqual([0, 4])
    expect(none.err.message).toBe('0 nodes are active (registered, not paused, exiting nor kicked out), this job with 3 verifiers needs 4 ' +
      '(its submitter cannot verify it). Nothing was uploaded or paid')
    expect(none.stages).toEqual([])
    // three registered nodes are one short of k + 1; a fourth that pauses does not count
    for (const i of [2, 3, 4, 5]) await registerNode(env, i, id('any-gpu'), 8, env.deployment.params.registry.minStake)
    await (await env.contracts(5).nodeRegistry.pause()).wait()
    const three = await refusal()
    expect([three.err.name, three.err.active, three.stages]).toEqual(['JobCannotFinishError', 3, []])
    expect(three.err.message).toMatch(/^3 nodes are active .* needs 4 /)
    expect(await env.provider.getTransactionCount(env.client.address)).toBe(nonce)
    // without the option the same job is funded (nodes that register later may take it)
    expect((await env.client.submit(whole, { signal: AbortSignal.timeout(30_000) })).jobId).toMatch(/^0x[0-9a-f]{64}$/)
    // k + 1 active: taken
    await (await env.contracts(5).nodeRegistry.resume()).wait()
    const job = await env.client.submit(whole, { requireActiveNodes: true, signal: AbortSignal.timeout(30_000) })
    expect((await env.client.status(job.jobId)).status).toBe('Open')
  })

  it('with requirePeer, refuses before paying a job whose ipfs:// input nobody serves, or whose https:// input the peers may not read; one a peer serves goes on', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const server = await serveInputs(env.peer)
    try {
      // code added on the peer: fetched from it, the job is paid and announced (this first submit also waits, up to
      // peerWaitMs, for the client to learn that the peer serves the replication protocol)
      const served = `ipfs://${await createContentStore({ helia: env.peer.helia }).addRaw(code)}`
      const job = await env.client.submit({ code: served, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { requirePeer: true, peerWaitMs: 10_000, signal: AbortSignal.timeout(60_000) })
      expect(job.spec.codeUri).toBe(served)
      // a CID nobody holds (the sha256 of bytes nobody added): refused after peerWaitMs, nothing paid
      const nonce = await env.provider.getTransactionCount(env.client.address)
      const missing = `ipfs://${rawOutputCid('0x' + '42'.repeat(32))}`
      const refused = await env.client.submit({ code: missing, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { requirePeer: true, peerWaitMs: 1_500, signal: AbortSignal.timeout(30_000) }).catch((e: unknown) => e as Error & { uri: string })
      expect(refused.name).toBe('InputUnavailableError')
      expect(refused.uri).toBe(missing)
      expect(refused.message).toContain(`the job's code ${missing} cannot be fetched`)
      expect(refused.message).toContain('nothing was paid')
      // data named by a URI nobody serves: refused before the code is uploaded (no stage reported)
      const stages: string[] = []
      const noData = await env.client.submit({ code, data: { uri: missing }, blockCount: 8, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { requirePeer: true, peerWaitMs: 1_500, onProgress: (p) => stages.push(p.stage), signal: AbortSignal.timeout(30_000) }).catch((e: unknown) => e as Error & { uri: string })
      expect(noData.name).toBe('InputUnavailableError')
      expect(noData.message).toContain(`the job's data ${missing} cannot be fetched`)
      expect(stages).toEqual([])
      // an https:// input on this machine: the peers refuse to read such a host (ForbiddenUriError), so it is refused
      // here before paying too (it was paid, and every peer failed the job)
      const local = 'https://127.0.0.1:1/data'
      const forbidden = await env.client.submit({ code, data: { uri: local }, blockCount: 8, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { requirePeer: true, peerWaitMs: 1_500, signal: AbortSignal.timeout(30_000) }).catch((e: unknown) => e as Error & { uri: string })
      expect(forbidden.name).toBe('InputUnavailableError')
      expect(forbidden.uri).toBe(local)
      expect(forbidden.message).toContain(`the job's data ${local} cannot be fetched: ${local}: 127.0.0.1 is not a public address`)
      // the same of code (a QA pass saw `uploading...` before this refusal): refused before the data is uploaded
      stages.length = 0
      const localCode = 'https://127.0.0.1:1/job.wasm'
      const forbiddenCode = await env.client.submit({ code: { uri: localCode }, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { requirePeer: true, peerWaitMs: 1_500, onProgress: (p) => stages.push(p.stage), signal: AbortSignal.timeout(30_000) }).catch((e: unknown) => e as Error & { uri: string })
      expect(forbiddenCode.name).toBe('InputUnavailableError')
      expect(forbiddenCode.message).toContain(`the job's code ${localCode} cannot be fetched: ${localCode}: 127.0.0.1 is not a public address`)
      expect(stages).toEqual([])
      expect(await env.provider.getTransactionCount(env.client.address)).toBe(nonce)
    } finally {
      await server.stop()
    }
  })

  it('with requirePeer, refuses before uploading or paying a job whose data URI ends before its last block; a short last block goes on', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const server = await serveInputs(env.peer)
    try {
      const peerStore = createContentStore({ helia: env.peer.helia })
      // 8 blocks of 4 bytes declared, 5 behind the URI: MicroJobs 1.1 and half of 1.0 would read past its end on
      // every peer (it was paid, and the job sat until its deadline, its last MicroJobs failing as fetch errors)
      const short = `ipfs://${await peerStore.addBytes(data.subarray(0, 20))}`
      const nonce = await env.provider.getTransactionCount(env.client.address)
      const stages: string[] = []
      const refused = await env.client.submit({ code, data: { uri: short }, blockCount: 8, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { requirePeer: true, peerWaitMs: 10_000, onProgress: (p) => stages.push(p.stage), signal: AbortSignal.timeout(60_000) })
        .catch((e: unknown) => e as InvalidJobError)
      expect(refused.name).toBe('InvalidJobError')
      expect(refused.issues.map(i => i.path)).toEqual(['blockCount'])
      expect(refused.issues[0].message).toContain(`the data ${short} ends before block 8 of 4 bytes (it holds at most 28 bytes`)
      expect(refused.issues[0].message).toContain('nothing was paid')
      // refused before the code was uploaded: no stage reported
      expect(stages).toEqual([])
      expect(await env.provider.getTransactionCount(env.client.address)).toBe(nonce)
      // 29 bytes: the last block has 1 byte of its 4, as ceil(size / blockSize) counts a file's: paid and announced
      const partial = `ipfs://${await peerStore.addBytes(data.subarray(0, 29))}`
      const job = await env.client.submit({ code, data: { uri: partial }, blockCount: 8, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { requirePeer: true, peerWaitMs: 10_000, signal: AbortSignal.timeout(60_000) })
      expect(job.spec.dataUri).toBe(partial)
    } finally {
      await server.stop()
    }
  })

  it('reports the peers\' refusals of its inputs: data behind a URI larger than the job declares', async () => {
    const env = await setup()
    const { code } = smallJob()
    const server = await startReplicationServer({ libp2p: env.peer.libp2p, store: createContentStore({ helia: env.peer.helia }, { fetchTimeoutMs: 20_000 }) })
    try {
      // 8 blocks of 4 bytes declared; 2 MiB behind the URI (held by the client's own node)
      const big = await createContentStore({ helia: env.client.node.helia }).addBytes(new Uint8Array(2 * 1024 * 1024).fill(3))
      const job = await env.client.submit({ code, data: { uri: `ipfs://${big}` }, blockCount: 8, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { signal: AbortSignal.timeout(60_000) })
      expect(job.holders).toEqual([])
      expect(job.refusals).toHaveLength(1)
      expect(job.refusals[0]).toMatchObject({ peer: env.peer.peerId.toString(), error: 'ContentTooLargeError' })
      // the bound the job declares (8 x 4 bytes, with the room for a DAG's nodes), the same on every peer
      // in the peer's own words (what the CLI prints after `inputs refused by:`)
      expect(job.refusals[0].reason).toBe(`ContentTooLargeError: ipfs://${big} is larger than ${jobContentBounds({ blockCount: 8, blockSize: 4 }).data} bytes`)
      expect(await env.peer.helia.pins.isPinned(CID.parse(big))).toBe(false)
      // detached, the client asks again every second until its time is up: the peer is still one refusal
      const detached = await env.client.submit({ code, data: { uri: `ipfs://${big}` }, blockCount: 8, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { detached: true, replicationTimeoutMs: 3_500, signal: AbortSignal.timeout(60_000) })
      expect(detached.holders).toEqual([])
      expect(detached.refusals.map(r => r.peer)).toEqual([env.peer.peerId.toString()])
    } finally {
      await server.stop()
    }
  })

  /** A registered peer that fetches, pins and proves the inputs it is asked to hold. */
  async function honestHolder (env: Awaited<ReturnType<typeof setup>>, index: number): Promise<{ node: JobmeshNode, stop: () => Promise<void> }> {
    const node = await createNode({})
    const served = await serveInputs(node)
    await registerNode(env, index, id('any-gpu'), 8, env.deployment.params.registry.minStake, node.privateKey)
    await node.libp2p.dial(env.client.node.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
    return { node, stop: async () => { await served.stop(); await node.stop() } }
  }

  it('detached, it counts only holders that prove it: a registered liar\'s "held" does not let it leave', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const liar = await lieAboutHolding(env.peer)
    await registerNode(env, 5, id('any-gpu'), 8, env.deployment.params.registry.minStake, env.peer.privateKey)
    const honest = [await honestHolder(env, 4), await honestHolder(env, 3)]
    try {
      const job = await env.client.submit({ code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { detached: true, signal: AbortSignal.timeout(60_000) })
      // the liar answered first and failed its proof; the client left once two peers proved they hold the inputs
      expect([...job.holders].sort()).toEqual(honest.map(h => h.node.peerId.toString()).sort())
      expect(job.unproven.map(u => u.peer)).toEqual([env.peer.peerId.toString()])
      for (const h of honest) expect(await h.node.helia.pins.isPinned(CID.parse(job.spec.dataUri.slice('ipfs://'.length)))).toBe(true)
    } finally {
      for (const h of honest) await h.stop()
      await liar.stop()
    }
  })

  it('a registered liar alone is no holder, even one that fetches the challenged blocks when asked', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const liar = await lieAboutHolding(env.peer)
    await registerNode(env, 5, id('any-gpu'), 8, env.deployment.params.registry.minStake, env.peer.privateKey)
    try {
      const job = await env.client.submit({ code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { detached: true, replicationTimeoutMs: 7_000, signal: AbortSignal.timeout(60_000) })
      expect(job.holders).toEqual([])
      // reported, with why: it could not fetch the withheld blocks in the 5 s it had
      expect(job.unproven).toHaveLength(1)
      expect(job.unproven[0]).toMatchObject({ peer: env.peer.peerId.toString(), error: 'HoldProofFailedError' })
      expect(job.unproven[0].reason).toMatch(/^HoldProofFailedError: \S+ did not answer a challenge over \d+ blocks within 5000 ms$/)
      // it holds nothing it was not given during a challenge: no pin of the inputs
      expect(await env.peer.helia.pins.isPinned(CID.parse(job.spec.dataUri.slice('ipfs://'.length)))).toBe(false)
    } finally {
      await liar.stop()
    }
  })

  it('refuses code that is not WebAssembly or lacks the ABI before any upload or transaction', async () => {
    const env = await setup()
    const { data } = smallJob()
    const address = env.client.address
    const balance = await env.provider.getBalance(address)
    const nonce = await env.provider.getTransactionCount(address)
    const notWasm = new TextEncoder().encode('#!/bin/sh\necho not a job\n')
    const noAbi = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]) // an empty module: no exports
    for (const [code, reason] of [[notWasm, 'InvalidWasmError'], [noAbi, 'MissingExportError']] as const) {
      const stages: string[] = []
      const err = await env.client.submit({ code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 },
        { onProgress: (p) => stages.push(p.stage) }).catch((e: unknown) => e as Error & { reason: string })
      expect(err.name).toBe('InvalidCodeError')
      expect(err.reason).toBe(reason)
      expect(stages).toEqual([])
    }
    expect(await env.provider.getBalance(address)).toBe(balance)
    expect(await env.provider.getTransactionCount(address)).toBe(nonce)
    expect(await env.contracts(0).jobEscrow.queryFilter(env.contracts(0).jobEscrow.filters.JobCreated())).toHaveLength(0)
  })

  it('refuses k and a deadline beyond the deployed escrow\'s bounds, read from the chain, before any upload or payment', async () => {
    // a network whose escrow takes at most 5 verifiers and deadlines up to 2 days (the defaults are 7 and 30 days)
    const env = await setup({ deploy: { escrow: { maxVerifiers: 5, maxDeadline: 2 * 86_400 } } })
    const { code, data } = smallJob()
    const address = env.client.address
    const balance = await env.provider.getBalance(address)
    const nonce = await env.provider.getTransactionCount(address)
    const base = { code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n }
    const refused = async (over: { verifiers?: number, deadline?: number }): Promise<Error & { issues: Array<{ path: string, message: string }> }> => {
      const stages: SubmitStage[] = []
      const err = await env.client.submit({ ...base, ...over }, { onProgress: (p) => stages.push(p.stage) })
        .then(() => new Error('submitted'), (e: unknown) => e as Error)
      expect(stages).toEqual([])
      return err as Error & { issues: Array<{ path: string, message: string }> }
    }
    for (const k of [7, 300]) {
      const err = await refused({ verifiers: k })
      expect(err.name, err.message).toBe('InvalidJobError')
      // one issue per field: the uint8 bound of the validator gives way to this network's (300 > 255 as well)
      expect(err.issues).toEqual([{ path: 'verifiers', message: `k (verifiers) must be at most 5: this network's escrow accepts 3 to 5 verifiers, not ${k}` }])
    }
    // an even k inside the bounds: no escrow takes it (a tie would restart the round with nobody slashed)
    const even = await refused({ verifiers: 4 })
    expect(even.name, even.message).toBe('InvalidJobError')
    expect(even.issues).toEqual([{ path: 'verifiers', message: expect.stringMatching(/^k \(verifiers\) must be odd: /) }])
    const far = await refused({ verifiers: 3, deadline: Date.now() + 3 * 86_400_000 })
    expect(far.name, far.message).toBe('InvalidJobError')
    expect(far.issues).toEqual([{ path: 'deadline', message: expect.stringMatching(/^deadline is more than 2 days away: this network's escrow accepts a deadline at most 2 days after the job is created/) }])
    // both at once, each named
    expect((await refused({ verifiers: 8, deadline: Date.now() + 3 * 86_400_000 })).issues.map(i => i.path).sort()).toEqual(['deadline', 'verifiers'])
    expect(await env.provider.getBalance(address)).toBe(balance)
    expect(await env.provider.getTransactionCount(address)).toBe(nonce)
    expect(await env.contracts(0).jobEscrow.queryFilter(env.contracts(0).jobEscrow.filters.JobCreated())).toHaveLength(0)
    // at the bounds the escrow takes the job
    const job = await env.client.submit({ ...base, verifiers: 5, deadline: Date.now() + 2 * 86_400_000 - 60_000 }, { signal: AbortSignal.timeout(30_000) })
    expect((await env.client.status(job.jobId)).k).toBe(5)
  })

  it('refuses code and a model larger than the peers read, an estimate beyond their run limit and values wider than the escrow stores, before any upload or payment', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const address = env.client.address
    const balance = await env.provider.getBalance(address)
    const nonce = await env.provider.getTransactionCount(address)
    const whole: SubmitInput = { code, data, blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 }
    // sized by stat, refused before a byte of them is read
    const bigCode = await sparseFile(join(env.dir, 'big.wasm'), DEFAULT_MAX_CODE_BYTES + 1)
    const bigModel = await sparseFile(join(env.dir, 'big-model.bin'), MAX_MICROJOB_INPUT_BYTES - 4)
    for (const [over, path] of [
      [{ code: bigCode }, 'code'],
      [{ model: bigModel }, 'model'],
      [{ estimate: { secondsPerMicroJob: 31 } }, 'estimate.secondsPerMicroJob'],
      // these failed after the upload: a TypeError of the ABI encoding, an InvalidArgumentError of computeJobId
      [{ requirements: { minVramGb: 2 ** 32 } }, 'requirements.minVramGb'],
      [{ nonce: 2n ** 256n }, 'nonce'],
      [{ nonce: -1n }, 'nonce']
    ] as const) {
      const stages: SubmitStage[] = []
      const err = await env.client.submit({ ...whole, ...over }, { onProgress: (p) => stages.push(p.stage) })
        .then(() => { throw new Error(`${path}: submitted`) }, (e: unknown) => e as Error & { issues?: JobIssue[] })
      expect(err.name, `${path}: ${err.message}`).toBe('InvalidJobError')
      expect(err.issues?.map(i => i.path), path).toEqual([path])
      expect(stages, path).toEqual([])
    }
    expect(await env.provider.getBalance(address)).toBe(balance)
    expect(await env.provider.getTransactionCount(address)).toBe(nonce)
    expect(await env.contracts(0).jobEscrow.queryFilter(env.contracts(0).jobEscrow.filters.JobCreated())).toHaveLength(0)
  })

  it('refuses a fee below the escrow\'s minimum for the job before any upload, by the escrow\'s own rule', async () => {
    const env = await setup({ deploy: { escrow: { minFee: 10n ** 18n } } })
    const { code, data } = smallJob()
    const nonce = await env.provider.getTransactionCount(env.client.address)
    const stages: string[] = []
    // each verifier's share must reach minFee: fee >= minFee * (microJobsPerMacro + k * samples) / samples = 5 x minFee
    const minimum = 5n * 10n ** 18n
    const err = await env.client.submit({ code, data, blockSize: 4, slicing: SLICING, price: minimum - 1n, verifiers: 3 }, { onProgress: p => stages.push(p.stage) })
      .catch((e: unknown) => e as Error & { issues: Array<{ path: string, message: string }> })
    expect(err.name).toBe('InvalidJobError')
    expect(err.issues).toEqual([{ path: 'price', message: 'the fee of 4.999999999999999999 ETH is below this job\'s minimum of 5.0 ETH: each verifier\'s share of the fee must reach the escrow\'s minFee of 1.0 ETH' }])
    expect(stages).toEqual([])
    expect(await env.provider.getTransactionCount(env.client.address)).toBe(nonce)
    // the minimum itself: the escrow takes it (the SDK's rule is the escrow's, to the wei)
    const job = await env.client.submit({ code, data, blockSize: 4, slicing: SLICING, price: minimum, verifiers: 3 })
    expect((await env.client.status(job.jobId)).status).toBe('Open')
  })

  it('rounds the minimum fee up as the escrow does: 2 samples of 3 MicroJobs, an odd minFee', async () => {
    const minFee = 10n ** 18n + 1n
    const env = await setup({ deploy: { escrow: { minFee } } })
    const { code, data } = smallJob()
    // 8 blocks in 1 x 3 MicroJobs of 3; half of them verified: 2 samples; k = 3: 3 + 3 x 2 = 9 units over 2 samples
    const job = { code, data, blockSize: 4, slicing: { macroJobs: 1, microJobsPerMacro: 3, blocksPerMicro: 3 }, verification: 0.5, verifiers: 3 }
    const minimum = (minFee * 9n + 1n) / 2n
    expect(minimum).toBe(4_500_000_000_000_000_005n)
    const low = await env.client.submit({ ...job, price: minimum - 1n }).catch((e: unknown) => e as Error & { issues: Array<{ path: string }> })
    expect(low.name).toBe('InvalidJobError')
    expect(low.issues.map(i => i.path)).toEqual(['price'])
    const taken = await env.client.submit({ ...job, price: minimum })
    expect(taken.samples).toBe(2)
    expect((await env.client.status(taken.jobId)).status).toBe('Open')
  })

  it('fails with RpcUnreachableError (and its cause) when the RPC endpoint is unreachable', async () => {
    const err = await createJobClient({
      rpcUrl: 'http://127.0.0.1:9',
      signer: '0x' + '11'.repeat(32),
      deployment: { jobEscrow: '0x' + '22'.repeat(20) },
      rpcTimeoutMs: 2_000
    }).catch((e: unknown) => e as Error)
    expect(err.name).toBe('RpcUnreachableError')
    expect(err.cause).toBeInstanceOf(Error)
  })

  it('refuses a missing signer and an rpcUrl without a scheme with InvalidConfigError naming the option, before any request', async () => {
    const env = await setup()
    // an endpoint that counts what it is asked, in front of the anvil
    let requests = 0
    const server = createServer((req, res) => { requests++; req.pipe(request(env.anvil.rpcUrl, { method: 'POST', headers: req.headers }, (up) => { res.writeHead(up.statusCode ?? 502, up.headers); up.pipe(res) })) })
    await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve) })
    try {
      const port = (server.address() as AddressInfo).port
      const base = { deployment: env.deployment, rpcTimeoutMs: 2_000 }
      const connect = async (init: Record<string, unknown>): Promise<Error> =>
        await createJobClient({ ...base, ...init } as never).then(async (c) => { await c.stop(); return new Error('connected') }, (e: unknown) => e as Error)
      for (const signer of [undefined, null, 42]) {
        const err = await connect({ rpcUrl: `http://127.0.0.1:${port}`, signer })
        expect(err.name, `${String(signer)}: ${err.message}`).toBe('InvalidConfigError')
        expect(err.message).toMatch(/^signer/)
      }
      const noScheme = await connect({ rpcUrl: `127.0.0.1:${port}`, signer: env.anvil.accounts[2].privateKey })
      expect(noScheme.name, noScheme.message).toBe('InvalidConfigError')
      expect(noScheme.message).toBe(`malformed option rpcUrl: expected an http:// or https:// URL such as http://127.0.0.1:8545, got "127.0.0.1:${port}"`)
      // no init at all (a TypeError reading a property of undefined before), for both clients
      for (const init of [undefined, null, 'http://127.0.0.1:8545']) {
        const none = await createJobClient(init as never).catch((e: unknown) => e as Error)
        expect(none.name, none.message).toBe('InvalidConfigError')
        expect(none.message).toBe('a client needs its init object: { rpcUrl, signer, deployment, ... } (docs/sdk.md)')
        expect((await createEscrowClient(init as never).catch((e: unknown) => e as Error)).name).toBe('InvalidConfigError')
      }
      // a Node without Promise.withResolvers (20, the polyfill not imported) is refused before anything starts
      const withResolvers = Object.getOwnPropertyDescriptor(Promise, 'withResolvers')
      Reflect.deleteProperty(Promise, 'withResolvers')
      try {
        const old = await connect({ signer: env.anvil.accounts[2].privateKey })
        expect(old.name).toBe('InvalidConfigError')
        expect(old.message).toContain('import \'@jobmesh/peer/polyfill\' before the SDK')
      } finally {
        if (withResolvers != null) Object.defineProperty(Promise, 'withResolvers', withResolvers)
      }
      expect(requests).toBe(0)
      // the same endpoint, well given, answers
      const ok = await createJobClient({ ...base, rpcUrl: `http://127.0.0.1:${port}`, signer: env.anvil.accounts[2].privateKey })
      await ok.stop()
      expect(requests).toBeGreaterThan(0)
    } finally {
      server.close()
    }
  })

  it('fails with EscrowNotFoundError when no JobEscrow answers at deployment.jobEscrow, and names a registry of another deployment', async () => {
    const env = await setup()
    const signer = env.anvil.accounts[2].privateKey
    for (const [jobEscrow, reason] of [[env.anvil.accounts[0].address, 'no-code'], [env.deployment.nodeRegistry, 'not-an-escrow']] as const) {
      // with and without the registry in the deployment: the escrow is asked either way
      for (const deployment of [{ jobEscrow }, { ...env.deployment, jobEscrow }]) {
        const err = await createJobClient({ rpcUrl: env.anvil.rpcUrl, signer, deployment }).then(async (c) => { await c.stop(); return new Error('connected') }, (e: unknown) => e as Error)
        expect(err.name, err.message).toBe('EscrowNotFoundError')
        expect(err).toMatchObject({ address: jobEscrow, reason })
      }
    }
    const mixed = await createJobClient({ rpcUrl: env.anvil.rpcUrl, signer, deployment: { ...env.deployment, nodeRegistry: env.anvil.accounts[0].address } })
      .then(async (c) => { await c.stop(); return new Error('connected') }, (e: unknown) => e as Error)
    expect(mixed.name, mixed.message).toBe('InvalidConfigError')
    expect(mixed.message).toContain('is not the registry of the JobEscrow at')
  })

  it('refuses a bootstrap given as one string (it was read character by character)', async () => {
    const err = await createJobClient({
      rpcUrl: 'http://127.0.0.1:9',
      signer: '0x' + '11'.repeat(32),
      deployment: { jobEscrow: '0x' + '22'.repeat(20) },
      bootstrap: '/ip4/127.0.0.1/tcp/4001' as unknown as string[]
    }).catch((e: unknown) => e as Error)
    expect(err.name).toBe('InvalidConfigError')
    expect(err.message).toContain('bootstrap must be an array of multiaddrs')
  })
})
