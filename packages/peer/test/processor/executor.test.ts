import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { sliceJob } from '../../src/protocol/index.js'
import { testExecutor, testJob } from '@jobmesh/testkit'

describe('testExecutor', () => {
  it('leaves no abort listener on the long-lived signal it is given (one per MicroJob was a leak)', async () => {
    const job = testJob(1, 20)
    const { microJobs } = sliceJob(job.spec, job.jobId)
    const controller = new AbortController()
    const executor = testExecutor({ workMs: 1 })
    for (const d of microJobs) {
      await executor.run({ jobId: job.jobId, spec: job.spec, macroIndex: d.macroIndex, index: d.index, microId: d.microId, start: d.start, end: d.end }, { signal: controller.signal })
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  it('rejects with the abort reason when aborted during the work', async () => {
    const job = testJob(1, 1)
    const d = sliceJob(job.spec, job.jobId).microJobs[0]
    const controller = new AbortController()
    const run = testExecutor({ workMs: 10_000 }).run({ jobId: job.jobId, spec: job.spec, macroIndex: 0, index: 0, microId: d.microId, start: d.start, end: d.end }, { signal: controller.signal })
    controller.abort(new Error('stopped'))
    await expect(run).rejects.toThrow('stopped')
  })
})
