import { describe, expect, it } from 'vitest'
import { chooseJob } from '../../src/protocol/index.js'
import type { JobCandidate } from '../../src/protocol/index.js'

const jobs: JobCandidate[] = [
  { id: 'j1', value: 10n, minVramGb: 8 },
  { id: 'j2', value: 30n, minVramGb: 8, gpuModel: 'A100' },
  { id: 'j3', value: 20n, minVramGb: 16, gpuModel: 'RTX4090', modelId: 'sdxl' },
  { id: 'j4', value: 25n, minVramGb: 48 },
  { id: 'j5', value: 5n, minVramGb: 0, modelId: 'llama' }
]

describe('chooseJob', () => {
  it('takes the highest value among eligible jobs', () => {
    expect(chooseJob(jobs, { gpuModel: 'RTX4090', vramGb: 24 })?.id).toBe('j3')
    expect(chooseJob(jobs, { gpuModel: 'A100', vramGb: 80 })?.id).toBe('j2')
    expect(chooseJob(jobs, { gpuModel: 'T4', vramGb: 8 })?.id).toBe('j1')
  })

  it('prefers a job whose model the peer holds in memory', () => {
    expect(chooseJob(jobs, { gpuModel: 'RTX4090', vramGb: 24, loadedModelId: 'llama' })?.id).toBe('j5')
    expect(chooseJob(jobs, { gpuModel: 'RTX4090', vramGb: 24, loadedModelId: 'other' })?.id).toBe('j3')
  })

  it('prefers a job whose model the peer keeps at hand (--model), as if it were loaded', () => {
    expect(chooseJob(jobs, { gpuModel: 'RTX4090', vramGb: 24, heldModelIds: ['llama'] })?.id).toBe('j5')
    expect(chooseJob(jobs, { gpuModel: 'RTX4090', vramGb: 24, heldModelIds: ['other', 'sdxl'] })?.id).toBe('j3')
    expect(chooseJob(jobs, { gpuModel: 'A100', vramGb: 80, heldModelIds: ['other'] })?.id).toBe('j2')
    // a job without a model is never warm, whatever the peer holds
    expect(chooseJob([jobs[0], jobs[4]], { gpuModel: 'T4', vramGb: 8, heldModelIds: [] })?.id).toBe('j1')
  })

  it('breaks value ties by id and returns undefined when nothing fits', () => {
    const tied: JobCandidate[] = [{ id: 'b', value: 1n, minVramGb: 0 }, { id: 'a', value: 1n, minVramGb: 0 }]
    expect(chooseJob(tied, { gpuModel: 'X', vramGb: 1 })?.id).toBe('a')
    expect(chooseJob(jobs, { gpuModel: 'T4', vramGb: 4, loadedModelId: 'sdxl' })?.id).toBe('j5')
    expect(chooseJob([jobs[3]], { gpuModel: 'T4', vramGb: 4 })).toBeUndefined()
  })

  it('breaks value ties by the key it is given (the processor\'s differs per peer), after the model and the value', () => {
    const tied: JobCandidate[] = [{ id: 'a', value: 1n, minVramGb: 0 }, { id: 'b', value: 1n, minVramGb: 0 }, { id: 'c', value: 1n, minVramGb: 0 }]
    const reversed = (id: string): string => ({ a: '3', b: '2', c: '1' } as Record<string, string>)[id]
    expect(chooseJob(tied, { gpuModel: 'X', vramGb: 1 }, reversed)?.id).toBe('c')
    expect(chooseJob([...tied, { id: 'd', value: 2n, minVramGb: 0 }], { gpuModel: 'X', vramGb: 1 }, reversed)?.id).toBe('d')
    expect(chooseJob([...tied, { id: 'e', value: 0n, minVramGb: 0, modelId: 'm' }], { gpuModel: 'X', vramGb: 1, loadedModelId: 'm' }, reversed)?.id).toBe('e')
  })
})
