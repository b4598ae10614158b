import { describe, expect, it } from 'vitest'
import { MAX_MICROJOBS_PER_JOB, MAX_MICROJOB_OUTPUT_BYTES, decodeJobSpec, encodeJobSpec, jobOutputBound, parseJobSpec } from '../../src/protocol/index.js'
import { validSpecInput } from './helpers.js'
import type { InvalidJobSpecError } from '../../src/protocol/index.js'

function issuesOf (input: unknown): Array<{ path: string, message: string }> {
  try {
    parseJobSpec(input)
  } catch (err) {
    expect((err as Error).name).toBe('InvalidJobSpecError')
    return (err as InvalidJobSpecError).issues
  }
  throw new Error('expected parseJobSpec to throw')
}

describe('parseJobSpec', () => {
  it('accepts a valid spec, converting amounts and seed to bigint', () => {
    const spec = parseJobSpec(validSpecInput())
    expect(spec.price).toBe(10n ** 19n)
    expect(spec.seed).toBe(42n)
    expect(spec.slicing).toEqual({ macroJobs: 2, microJobsPerMacro: 2, blocksPerMicro: 3 })
  })

  it('accepts bigint amounts and a hex seed, and applies defaults', () => {
    const input = validSpecInput()
    input.price = 5n
    input.seed = '0xff'
    delete input.verifiers
    delete input.version
    delete input.requirements
    const spec = parseJobSpec(input)
    expect(spec.price).toBe(5n)
    expect(spec.seed).toBe(255n)
    expect(spec.verifiers).toBe(3)
    expect(spec.version).toBe(1)
    expect(spec.requirements).toEqual({ minVramGb: 0 })
  })

  it('lower-cases a checksummed creator and rejects a bad checksum', () => {
    const input = validSpecInput()
    input.creator = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
    expect(parseJobSpec(input).creator).toBe('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')
    input.creator = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'
    expect(issuesOf(input).map(i => i.path)).toEqual(['creator'])
  })

  it('lists every bad field at once', () => {
    const input = validSpecInput()
    input.price = '0'
    input.blockCount = 0
    input.blockSize = -1
    input.codeUri = 'ftp://example.org/code.wasm'
    input.dataUri = 'ipfs://'
    input.creator = '0x1234'
    input.verifiers = 0
    input.seed = '-1'
    input.slicing.blocksPerMicro = 0
    input.estimate.secondsPerMicroJob = 0
    input.extra = true
    const paths = issuesOf(input).map(i => i.path).sort()
    expect(paths).toEqual([
      '', 'blockCount', 'blockSize', 'codeUri', 'creator', 'dataUri', 'estimate.secondsPerMicroJob', 'price', 'seed',
      'slicing.blocksPerMicro', 'verifiers'
    ])
  })

  it('refuses file:// code and data, also from bytes off the network: a peer would read its own file of that name', () => {
    for (const key of ['codeUri', 'dataUri'] as const) {
      const input = validSpecInput()
      input[key] = 'file:///home/operator/.jobmesh/identity.key'
      const issues = issuesOf(input)
      expect(issues.map(i => i.path)).toEqual([key])
      expect(issues[0].message).toBe('unknown URI scheme: allowed are ipfs://, https://')
      // what a creator could announce: the canonical JSON of such a spec, hand-made
      const bytes = new TextEncoder().encode(JSON.stringify({ ...JSON.parse(new TextDecoder().decode(encodeJobSpec(parseJobSpec(validSpecInput())))), [key]: input[key] }))
      expect(() => decodeJobSpec(bytes)).toThrow(expect.objectContaining({ name: 'InvalidJobSpecError' }))
    }
  })

  it('bounds k by what the escrow can encode (uint8), the network bound being the chain\'s', () => {
    for (const k of [256, 300]) {
      const input = validSpecInput()
      input.verifiers = k
      expect(issuesOf(input)).toEqual([{ path: 'verifiers', message: expect.stringMatching(/^k \(verifiers\) must be at most 255: the escrow stores k as a uint8/) }])
    }
    const input = validSpecInput()
    input.verifiers = 255
    expect(parseJobSpec(input).verifiers).toBe(255)
  })

  it('rejects a negative price and a seed above 2^256 - 1', () => {
    const input = validSpecInput()
    input.price = '-5'
    input.seed = (1n << 256n).toString()
    expect(issuesOf(input).map(i => i.path).sort()).toEqual(['price', 'seed'])
  })

  it('a price in ether ("0.01") is refused with what a price in wei looks like', () => {
    const input = validSpecInput()
    input.price = '0.01'
    const [issue] = issuesOf(input)
    expect(issue).toMatchObject({ path: 'price' })
    expect(issue.message).toContain('a whole amount in wei')
    expect(issue.message).toContain('parseEther("0.01")')
  })

  it('reports slicing with more MicroJobs than blocks need, alongside field errors', () => {
    const input = validSpecInput()
    input.slicing = { macroJobs: 3, microJobsPerMacro: 2, blocksPerMicro: 3 } // 6 MicroJobs, 10 blocks need 4
    input.price = '0'
    const issues = issuesOf(input)
    expect(issues.map(i => i.path).sort()).toEqual(['price', 'slicing'])
    // 10 blocks of 4 bytes: 6 MicroJobs of 3 need 16 to 18
    expect(issues.find(i => i.path === 'slicing')?.message).toBe('the slicing (3 MacroJobs x 2 MicroJobs x 3 blocks) needs 16 to 18 blocks ' +
      `(only the last MicroJob may be shorter), but the data has 10 blocks of ${input.blockSize as number} bytes; what fits: 4 MicroJobs of 3 blocks (MacroJobs x MicroJobs per MacroJob = 4)`)
  })

  it('reports slicing that leaves blocks uncovered', () => {
    const input = validSpecInput()
    input.blockCount = 13 // 4 MicroJobs x 3 blocks = 12
    expect(issuesOf(input)).toEqual([{ path: 'slicing', message: expect.stringMatching(/^the slicing \(2 MacroJobs x 2 MicroJobs x 3 blocks\) needs 10 to 12 blocks .* but the data has 13 blocks .*; what fits: 5 MicroJobs of 3 blocks/) }])
  })

  it('refuses more MicroJobs than a job may have (every peer slices a job whole), at the boundary too', () => {
    const input = validSpecInput()
    input.blockSize = 1
    input.blockCount = MAX_MICROJOBS_PER_JOB
    input.slicing = { macroJobs: 1, microJobsPerMacro: MAX_MICROJOBS_PER_JOB, blocksPerMicro: 1 }
    expect(parseJobSpec(input).slicing.microJobsPerMacro).toBe(MAX_MICROJOBS_PER_JOB)
    input.blockCount = 10_000_000
    input.slicing = { macroJobs: 1, microJobsPerMacro: 10_000_000, blocksPerMicro: 1 }
    expect(issuesOf(input)).toEqual([{ path: 'slicing', message: `10000000 MicroJobs: a job has at most ${MAX_MICROJOBS_PER_JOB}` }])
    // a spec off the network is refused the same way (an announcement of it is malformed)
    expect(() => decodeJobSpec(new TextEncoder().encode(JSON.stringify({ ...input, price: String(input.price), seed: String(input.seed) }))))
      .toThrow(expect.objectContaining({ name: 'InvalidJobSpecError' }))
  })

  it('refuses a MicroJob input no peer reads (over 256 MiB), at the boundary too', () => {
    const input = validSpecInput()
    input.blockSize = 99_999_999_999_999
    input.blockCount = 1
    input.slicing = { macroJobs: 1, microJobsPerMacro: 1, blocksPerMicro: 1 }
    expect(issuesOf(input)).toEqual([{
      path: 'slicing.blocksPerMicro',
      message: 'a MicroJob would read 1 blocks of 99999999999999 bytes (99999999999999 bytes); peers read at most 268435456 bytes (256 MiB) per MicroJob'
    }])
    input.blockSize = 64 * 1024 * 1024
    input.blockCount = 4
    input.slicing = { macroJobs: 1, microJobsPerMacro: 1, blocksPerMicro: 4 }
    expect(parseJobSpec(input).blockSize).toBe(64 * 1024 * 1024)
    input.blockSize += 1
    expect(issuesOf(input).map(i => i.path)).toEqual(['slicing.blocksPerMicro'])
  })

  it('takes an optional output bound per MicroJob, a whole number of bytes up to 64 MiB; without one a spec encodes as before', () => {
    const input = validSpecInput()
    const plain = parseJobSpec(input)
    expect(plain.estimate.maxOutputBytes).toBeUndefined()
    expect(new TextDecoder().decode(encodeJobSpec(plain))).not.toContain('maxOutputBytes')
    expect(jobOutputBound(plain)).toBe(4 * MAX_MICROJOB_OUTPUT_BYTES) // 2 x 2 MicroJobs, 64 MiB each
    const bounded = parseJobSpec({ ...input, estimate: { secondsPerMicroJob: 2, maxOutputBytes: 4096 } })
    expect(bounded.estimate.maxOutputBytes).toBe(4096)
    expect(jobOutputBound(bounded)).toBe(4 * 4096)
    // part of the spec's bytes, so of its CID and the jobId: a spec cannot be given another bound after it is funded
    expect(decodeJobSpec(encodeJobSpec(bounded))).toEqual(bounded)
    expect(encodeJobSpec(bounded)).not.toEqual(encodeJobSpec(plain))
    expect(parseJobSpec({ ...input, estimate: { secondsPerMicroJob: 2, maxOutputBytes: MAX_MICROJOB_OUTPUT_BYTES } }).estimate.maxOutputBytes).toBe(MAX_MICROJOB_OUTPUT_BYTES)
    for (const bad of [MAX_MICROJOB_OUTPUT_BYTES + 1, 0, 1.5, -1, '4096']) {
      expect(issuesOf({ ...input, estimate: { secondsPerMicroJob: 2, maxOutputBytes: bad } }).map(i => i.path)).toEqual(['estimate.maxOutputBytes'])
    }
  })

  it('accepts a shorter last MicroJob (10 blocks in 4 x 3)', () => {
    expect(parseJobSpec(validSpecInput()).blockCount).toBe(10)
  })

  it('does not check the deadline against the clock', () => {
    const input = validSpecInput()
    input.deadline = 1
    expect(parseJobSpec(input).deadline).toBe(1)
  })

  it('rejects non-objects', () => {
    expect(issuesOf(null).length).toBeGreaterThan(0)
    expect(issuesOf('spec').length).toBeGreaterThan(0)
  })
})

describe('encodeJobSpec / decodeJobSpec', () => {
  it('round-trips and is independent of key order and input form', () => {
    const a = parseJobSpec(validSpecInput())
    const reordered = Object.fromEntries(Object.entries(validSpecInput()).reverse())
    reordered.seed = '0x2a'
    reordered.price = 10n ** 19n
    const b = parseJobSpec(reordered)
    const bytes = encodeJobSpec(a)
    expect(encodeJobSpec(b)).toEqual(bytes)
    expect(decodeJobSpec(bytes)).toEqual(a)
  })

  it('writes sorted keys and bigints as decimal strings', () => {
    const text = new TextDecoder().decode(encodeJobSpec(parseJobSpec(validSpecInput())))
    expect(text.startsWith('{"blockCount":10,"blockSize":4096,"codeUri":')).toBe(true)
    expect(text).toContain('"price":"10000000000000000000"')
    expect(text).toContain('"seed":"42"')
    expect(text).not.toMatch(/\s/)
  })

  it('gives typed errors for bytes that are not JSON or not a spec', () => {
    expect(() => decodeJobSpec(new Uint8Array([0xff, 0x00]))).toThrow(expect.objectContaining({ name: 'MalformedJobSpecEncodingError' }))
    expect(() => decodeJobSpec(new TextEncoder().encode('{"version":1}'))).toThrow(expect.objectContaining({ name: 'InvalidJobSpecError' }))
  })
})
