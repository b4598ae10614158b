import { createProcessor } from '@jobmesh/peer/processor'
import { testExecutor } from '@jobmesh/testkit'
import { createContentStore } from '@jobmesh/peer/storage'
import { docsOfJob } from '@jobmesh/peer/crdt'
import { afterEach, describe, expect, it } from 'vitest'
import { SLICING, cleanup, setup, smallJob } from './helpers.js'
import type { ProgressUpdate } from '../src/index.js'

afterEach(cleanup)

describe('with a processing peer', () => {
  it('a real processor picks up the announced job; progress and results follow its work', async () => {
    const env = await setup()
    const store = createContentStore({ helia: env.peer.helia })
    const processor = createProcessor({ ...env.peer, docs: env.peerDocs }, {
      executor: testExecutor(),
      storeOutput: async (bytes) => store.addOutput(bytes)
    })
    await processor.start()
    try {
      const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })
      const jobDocs = (): string[] => docsOfJob(env.client.docs.names(), job.jobId)
      const updates: ProgressUpdate[] = []
      const openWhileWatching: number[] = []
      for await (const u of env.client.progress(job.jobId, { timeoutMs: 45_000 })) {
        updates.push(u)
        openWhileWatching.push(jobDocs().length)
      }
      expect(updates.at(-1)).toEqual({ done: 4, total: 4 })
      // followed while watched (the round's doc and its MacroJobs' docs), closed once the watch ends
      expect(Math.min(...openWhileWatching)).toBeGreaterThan(0)
      expect(jobDocs()).toEqual([])

      const outputs = await env.client.results(job.jobId, { signal: AbortSignal.timeout(30_000) })
      expect(jobDocs()).toEqual([])
      expect(outputs.map(o => `${o.macroIndex}.${o.index}`)).toEqual(['0.0', '0.1', '1.0', '1.1'])
      const executor = testExecutor()
      for (const [g, d] of job.microJobs.entries()) {
        const { output: expected } = await executor.run({ jobId: job.jobId, spec: job.spec, ...d }, { signal: AbortSignal.timeout(1000) })
        expect(Buffer.from(outputs[g].bytes).equals(Buffer.from(expected))).toBe(true)
        expect(outputs[g].signer).toBe(env.peer.peerId.toString())
      }
    } finally {
      await processor.stop()
    }
  })
})
