import { describe, expect, it } from 'vitest'
import { waitingText } from '../../src/waiting-lines.js'

describe('waitingText', () => {
  const jobId = '0x' + 'ab'.repeat(32)
  it('names only what the job asks of a node: a GPU model alone is not "at least 0 GB VRAM"', () => {
    expect(waitingText({ jobId, verifiers: 3, requirements: { minVramGb: 0, gpuModel: 'A100' } }, 0, true))
      .toBe('job 0xababab…abab is left alone until more such nodes join: its 3 verifiers are drawn among the active nodes with GPU model A100 besides its submitter, 4 are needed, 0 are known')
    expect(waitingText({ jobId, verifiers: 3, requirements: { minVramGb: 24, gpuModel: 'A100' } }, 1, true))
      .toContain('drawn among the active nodes with at least 24 GB VRAM and GPU model A100 besides its submitter, 4 are needed, 1 is known')
    expect(waitingText({ jobId, verifiers: 3, requirements: { minVramGb: 0 } }, 2, true))
      .toBe('job 0xababab…abab is left alone until more nodes join: its 3 verifiers are drawn among the active nodes besides its submitter, 4 are needed, 2 are known')
    expect(waitingText({ jobId, verifiers: 3 }, 1, false)).toMatch(/until more nodes join: .* among the active nodes besides its submitter, 4 are needed, 1 is active$/)
  })
})
