import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { METRIC_NAMES, registerPeerMetrics } from '../../src/observe/index.js'

describe('per-job metrics', () => {
  it('a job that leaves the observer\'s counts (settled on chain) leaves the exported series', async () => {
    const registry = new Registry()
    let jobs = [{ jobId: '0xaa', done: 1, total: 4 }, { jobId: '0xbb', done: 4, total: 4 }]
    const detach = registerPeerMetrics(registry, { jobs: () => jobs })
    try {
      const series = async (name: string): Promise<string[]> =>
        (await registry.getSingleMetric(name)?.get())?.values.map(v => `${String(v.labels.job)}=${v.value}`) ?? []
      expect(await series(METRIC_NAMES.jobMicroJobsDone)).toEqual(['0xaa=1', '0xbb=4'])
      jobs = [{ jobId: '0xaa', done: 2, total: 4 }]
      expect(await series(METRIC_NAMES.jobMicroJobsDone)).toEqual(['0xaa=2'])
      expect(await series(METRIC_NAMES.jobMicroJobs)).toEqual(['0xaa=4'])
    } finally {
      detach()
    }
  })
})
