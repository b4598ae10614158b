import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CID } from 'multiformats/cid'
import { outputHash } from '../../src/executor/index.js'
import { createNode } from '../../src/node/index.js'
import { testExecutor } from '@jobmesh/testkit'
import { parseJobSpec, sliceJob } from '../../src/protocol/index.js'
import { ensureOutputs } from '../../src/settlement/index.js'
import { createContentStore, rawOutputCid } from '../../src/storage/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { MicroJobExecutor } from '../../src/executor/index.js'
import type { JobSpec } from '../../src/protocol/index.js'
import type { ManifestEntry } from '../../src/settlement/index.js'
import type { ContentStore } from '../../src/storage/index.js'

const JOB_ID = '0x' + '42'.repeat(32)

describe('finalizer availability: ensureOutputs', () => {
  let node: JobmeshNode
  let store: ContentStore
  let spec: JobSpec
  const executor = testExecutor()

  beforeAll(async () => {
    node = await createNode()
    store = createContentStore({ helia: node.helia })
    spec = parseJobSpec({
      creator: '0x' + '11'.repeat(20), codeUri: 'ipfs://bafkqaaa', dataUri: 'ipfs://bafkqaaa', blockSize: 10, blockCount: 8,
      slicing: { macroJobs: 2, microJobsPerMacro: 2, blocksPerMicro: 2 }, seed: 7n, price: 1000n,
      estimate: { secondsPerMicroJob: 1 }, verifiers: 3, deadline: Date.now() + 3_600_000
    })
  })
  afterAll(async () => { await node.stop() })

  /** Manifest entries of the job's MicroJobs with the test executor's outputs; `stored` ones are in the blockstore. */
  async function entries (stored: (i: number) => boolean, jobId = JOB_ID): Promise<ManifestEntry[]> {
    const out: ManifestEntry[] = []
    for (const [i, d] of sliceJob(spec, jobId).microJobs.entries()) {
      const { output: bytes } = await executor.run({ jobId, spec, ...d }, { signal: AbortSignal.timeout(5_000) })
      const hash = outputHash(bytes)
      if (stored(i)) await store.addOutput(bytes)
      out.push({ ...d, outputHash: hash, outputCid: rawOutputCid(hash), size: bytes.byteLength, signer: 'peer' })
    }
    return out
  }

  it('fetches the outputs present, regenerates the missing ones with the executor, pins all; idempotent', async () => {
    const list = await entries(i => i % 2 === 0)
    expect(await node.helia.blockstore.has(CID.parse(list[1].outputCid))).toBe(false)
    const held = await ensureOutputs({ store, executor }, JOB_ID, spec, list, { fetchTimeoutMs: 300 })
    expect([held.fetched, held.regenerated]).toEqual([2, 2])
    expect(held.entries).toEqual(list)
    for (const e of list) expect(await node.helia.pins.isPinned(CID.parse(e.outputCid))).toBe(true)
    // again: everything is local now
    const again = await ensureOutputs({ store, executor }, JOB_ID, spec, list, { fetchTimeoutMs: 300 })
    expect([again.fetched, again.regenerated]).toEqual([4, 0])
  })

  it('does not fetch an output larger than the job\'s bound per MicroJob: a re-run has to back it', async () => {
    const other = '0x' + '44'.repeat(32)
    // the test executor's outputs are 32 bytes; this job declares at most 16 per MicroJob
    const list = await entries(() => true, other)
    const bounded = { ...spec, estimate: { ...spec.estimate, maxOutputBytes: 16 } }
    const held = await ensureOutputs({ store, executor }, other, bounded, list, { fetchTimeoutMs: 300 })
    expect([held.fetched, held.regenerated]).toEqual([0, 4])
    // within the bound they are fetched
    const again = await ensureOutputs({ store, executor }, other, spec, list, { fetchTimeoutMs: 300 })
    expect([again.fetched, again.regenerated]).toEqual([4, 0])
  })

  it('fails with OutputMismatchError when a regenerated output differs from the recorded hash', async () => {
    const other = '0x' + '43'.repeat(32)
    const list = await entries(() => false, other)
    const wrong: MicroJobExecutor = {
      ...executor,
      async run (task, options) {
        const run = await executor.run(task, options)
        if (task.index === 1) run.output[0] ^= 0xff
        return run
      }
    }
    await expect(ensureOutputs({ store, executor: wrong }, other, spec, list, { fetchTimeoutMs: 200 }))
      .rejects.toMatchObject({ name: 'OutputMismatchError', index: 1 })
  })

  it('with replaceAs, a withheld output whose re-run differs becomes this node\'s own result; the served ones stay', async () => {
    const other = '0x' + '44'.repeat(32)
    // MicroJob 1's processor faked its output (recorded hash of other bytes) and never stored it
    const list = await entries(i => i !== 1, other)
    const faked = { ...list[1], outputHash: '0x' + 'cd'.repeat(32), outputCid: rawOutputCid('0x' + 'cd'.repeat(32)), signer: 'faker', payee: '0x' + 'fa'.repeat(20) }
    const recorded = [list[0], faked, list[2], list[3]].map(e => ({ ...e, payee: e.payee ?? '0x' + '01'.repeat(20) }))
    const me = { signer: 'finalizer', payee: '0x' + 'f1'.repeat(20) }
    const held = await ensureOutputs({ store, executor }, other, spec, recorded, { fetchTimeoutMs: 200, replaceAs: me })
    const own = { ...list[1], payee: me.payee, signer: me.signer }
    expect(held.replaced).toEqual([own])
    expect(held.entries).toEqual([recorded[0], own, recorded[2], recorded[3]])
    expect([held.fetched, held.regenerated]).toEqual([3, 1])
    // the finalizer holds the correct bytes of the replaced MicroJob, under their own CID
    expect(await node.helia.pins.isPinned(CID.parse(own.outputCid))).toBe(true)
  })

  it('fails with OutputUnavailableError when an output is missing and there is no executor', async () => {
    const missing = { ...(await entries(() => true))[0], outputHash: '0x' + 'ab'.repeat(32), outputCid: rawOutputCid('0x' + 'ab'.repeat(32)) }
    await expect(ensureOutputs({ store }, JOB_ID, spec, [missing], { fetchTimeoutMs: 200 }))
      .rejects.toMatchObject({ name: 'OutputUnavailableError', macroIndex: 0, index: 0 })
  })
})
