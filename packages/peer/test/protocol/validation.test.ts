import { AbiCoder, keccak256 } from 'ethers'
import { describe, expect, it } from 'vitest'
import { sampleExecutionDigest, validationIndex, verifierHash } from '../../src/protocol/index.js'

const coder = AbiCoder.defaultAbiCoder()
const ENTROPY = '0x' + 'c4'.repeat(32)

describe('validation sample', () => {
  it('validationIndex = uint256(keccak256(abi.encode(seed, m, entropy))) % P', () => {
    const seed = (1n << 255n) + 12345n
    for (const [m, P] of [[0, 7], [3, 1000], [2 ** 40, 3]]) {
      const expected = Number(BigInt(keccak256(coder.encode(['uint256', 'uint256', 'bytes32'], [seed, m, ENTROPY]))) % BigInt(P))
      expect(validationIndex(seed, m, ENTROPY, P)).toBe(expected)
    }
    expect(validationIndex(1n, 0, ENTROPY, 1)).toBe(0)
  })

  it('spreads over the MacroJob: every index is drawn for some entropy', () => {
    const seen = new Set<number>()
    for (let e = 0; e < 200; e++) seen.add(validationIndex(5n, 1, '0x' + e.toString(16).padStart(64, '0'), 8))
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
  })

  it('samples each MicroJob of a MacroJob at 1/P of the draws (the rate at which a single fake is caught)', () => {
    // 4 000 draws of a MacroJob of P = 4 with one sample: how often index 2 (a faked MicroJob) is drawn lies within
    // 1 000 +- 4.5 standard deviations (sqrt(4000 x 1/4 x 3/4) = 27.4); a bias of 1/16 either way is outside it
    const P = 4
    let drawn = 0
    for (let e = 0; e < 4000; e++) if (validationIndex(7n, 1, keccak256(coder.encode(['uint256'], [e])), P) === 2) drawn++
    expect(drawn).toBeGreaterThan(1000 - 124)
    expect(drawn).toBeLessThan(1000 + 124)
  })

  it('verifierHash = keccak256(abi.encode(bytes32[], bytes32 executionDigest))', () => {
    const hashes = ['0x' + '01'.repeat(32), '0x' + 'AB'.repeat(32)]
    const digest = '0x' + '5e'.repeat(32)
    expect(verifierHash(hashes, digest)).toBe(keccak256(coder.encode(['bytes32[]', 'bytes32'], [hashes.map(h => h.toLowerCase()), digest])))
    expect(verifierHash([], digest)).toBe(keccak256(coder.encode(['bytes32[]', 'bytes32'], [[], digest])))
    expect(verifierHash(hashes, digest)).not.toBe(verifierHash([...hashes].reverse(), digest))
    // the same leaves with another execution digest (a vote copied from the outputs) commit to something else
    expect(verifierHash(hashes, digest)).not.toBe(verifierHash(hashes, '0x' + '00'.repeat(32)))
  })

  it('sampleExecutionDigest = keccak256(abi.encode(bytes32 jobId, uint256 submitBlock, bytes32[])) of the re-runs\' digests in sample order', () => {
    const digests = ['0x' + '0a'.repeat(32), '0x' + '0b'.repeat(32)]
    const round = { jobId: '0x' + 'C1'.repeat(32), submitBlock: 40 }
    expect(sampleExecutionDigest(round, digests)).toBe(keccak256(coder.encode(['bytes32', 'uint256', 'bytes32[]'], [round.jobId.toLowerCase(), 40, digests])))
    expect(sampleExecutionDigest(round, digests)).not.toBe(sampleExecutionDigest(round, [...digests].reverse()))
  })

  it('sampleExecutionDigest differs per round: a digest revealed in one round is no vote in the next, nor in another job of the same sample', () => {
    // a job whose sample repeats (one MicroJob per MacroJob: every round samples every MicroJob) re-runs to the same
    // per-MicroJob digests in every round; the revealed digest of round 1 is public calldata by round 2
    const digests = ['0x' + '0a'.repeat(32), '0x' + '0b'.repeat(32)]
    const jobId = '0x' + 'c1'.repeat(32)
    const first = sampleExecutionDigest({ jobId, submitBlock: 40 }, digests)
    expect(sampleExecutionDigest({ jobId, submitBlock: 40 }, digests)).toBe(first)
    expect(sampleExecutionDigest({ jobId, submitBlock: 61 }, digests)).not.toBe(first)
    expect(sampleExecutionDigest({ jobId: '0x' + 'c2'.repeat(32), submitBlock: 40 }, digests)).not.toBe(first)
  })

  it('rejects malformed arguments with a typed error', () => {
    const bad = expect.objectContaining({ name: 'InvalidArgumentError' })
    expect(() => validationIndex(1n, 0, '0x1234', 4)).toThrow(bad)
    expect(() => validationIndex(1n, 0, ENTROPY, 0)).toThrow(bad)
    expect(() => validationIndex(1n, -1, ENTROPY, 4)).toThrow(bad)
    expect(() => verifierHash(['0x12'], '0x' + '00'.repeat(32))).toThrow(bad)
    expect(() => verifierHash([], '0x12')).toThrow(bad)
    expect(() => sampleExecutionDigest({ jobId: ENTROPY, submitBlock: 1 }, ['0x12'])).toThrow(bad)
    expect(() => sampleExecutionDigest({ jobId: '0x12', submitBlock: 1 }, [])).toThrow(bad)
    expect(() => sampleExecutionDigest({ jobId: ENTROPY, submitBlock: -1 }, [])).toThrow(bad)
  })
})
