import { AbiCoder, keccak256 } from 'ethers'
import { describe, expect, it } from 'vitest'
import { computeJobId, computeMacroId, computeMicroId, parseJobSpec, sliceJob } from '../../src/protocol/index.js'
import { validSpecInput } from './helpers.js'

const coder = AbiCoder.defaultAbiCoder()
const JOB_ID = '0x' + '11'.repeat(32)

describe('ids', () => {
  it('match abi.encode + keccak256 for large values', () => {
    const seed = (1n << 256n) - 3n
    expect(computeMacroId(seed, JOB_ID, 2 ** 40)).toBe(keccak256(coder.encode(['uint256', 'bytes32', 'uint256'], [seed, JOB_ID, 2 ** 40])))
    expect(computeMicroId(0n, JOB_ID, 0)).toBe(keccak256(coder.encode(['uint256', 'bytes32', 'uint256'], [0n, JOB_ID, 0])))
  })

  it('jobId accepts a checksummed creator and lower-cases ids', () => {
    const a = computeJobId('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'cid', 1n)
    expect(a).toBe(computeJobId('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', 'cid', 1n))
    expect(computeMacroId(1n, JOB_ID.toUpperCase().replace('0X', '0x'), 0)).toBe(computeMacroId(1n, JOB_ID, 0))
  })

  it('reject malformed arguments with a typed error', () => {
    expect(() => computeMacroId(1n, '0x1234', 0)).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
    expect(() => computeMicroId(-1n, JOB_ID, 0)).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
    expect(() => computeMicroId(1n, JOB_ID, -1)).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
    expect(() => computeJobId('0xnope', 'cid', 0n)).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
  })
})

describe('sliceJob', () => {
  it('covers every block exactly once, contiguously, with a shorter last MicroJob', () => {
    const spec = parseJobSpec(validSpecInput()) // 10 blocks, 2 x 2 MicroJobs of 3
    const { microJobs, macroJobs } = sliceJob(spec, JOB_ID)
    expect(microJobs.map(d => [d.macroIndex, d.index, d.start, d.end])).toEqual([
      [0, 0, 0, 3], [0, 1, 3, 6], [1, 0, 6, 9], [1, 1, 9, 10]
    ])
    expect(macroJobs.map(m => [m.microId(0), m.microId(1)])).toEqual([[microJobs[0].microId, microJobs[1].microId], [microJobs[2].microId, microJobs[3].microId]])
    expect(macroJobs[1].microId(0)).toBe(computeMicroId(spec.seed, macroJobs[1].macroId, 0))
  })

  it('hashes a MicroJob id on its own, the same whichever is read first', () => {
    const spec = parseJobSpec(validSpecInput())
    const { macroJobs, microJobs } = sliceJob(spec, JOB_ID)
    expect(macroJobs[1].microId(1)).toBe(computeMicroId(spec.seed, macroJobs[1].macroId, 1))
    expect(microJobs[3].microId).toBe(macroJobs[1].microId(1))
    expect(macroJobs[1].microId(0)).toBe(computeMicroId(spec.seed, macroJobs[1].macroId, 0))
    // another slicing of the job, read in the other order, gives the same ids
    const again = sliceJob(spec, JOB_ID).macroJobs[1]
    expect([again.microId(1), again.microId(0)]).toEqual([macroJobs[1].microId(1), macroJobs[1].microId(0)])
  })

  it('is deterministic and depends on seed and jobId', () => {
    const spec = parseJobSpec(validSpecInput())
    expect(sliceJob(spec, JOB_ID)).toEqual(sliceJob(spec, JOB_ID))
    const other = sliceJob({ ...spec, seed: 43n }, JOB_ID)
    expect(other.microJobs[0].microId).not.toBe(sliceJob(spec, JOB_ID).microJobs[0].microId)
    expect(sliceJob(spec, '0x' + '22'.repeat(32)).macroJobs[0].macroId).not.toBe(sliceJob(spec, JOB_ID).macroJobs[0].macroId)
  })

  it('slices 100 000 MicroJobs with distinct ids and full coverage', () => {
    const spec = { seed: 7n, blockCount: 299_999, slicing: { macroJobs: 100, microJobsPerMacro: 1000, blocksPerMicro: 3 } }
    const t0 = performance.now()
    const { microJobs } = sliceJob(spec, JOB_ID)
    const ms = performance.now() - t0
    console.info(`sliceJob: 100 000 MicroJobs in ${ms.toFixed(0)} ms`)
    expect(microJobs.length).toBe(100_000)
    expect(new Set(microJobs.map(d => d.microId)).size).toBe(100_000)
    let next = 0
    let gaps = 0
    for (const d of microJobs) {
      if (d.start !== next || d.end <= d.start) gaps++
      next = d.end
    }
    expect(gaps).toBe(0)
    expect(next).toBe(299_999)
    expect(microJobs.at(-1)?.end).toBe(299_999)
    expect(microJobs.at(-1)?.start).toBe(299_997)
  })
})
