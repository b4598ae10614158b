import { describe, expect, it } from 'vitest'
import { keccak256, toUtf8Bytes, concat } from 'ethers'
import { WORK_TAG_BYTES, isWorkTag, workTag } from '../../src/protocol/index.js'

const DIGEST = '0x' + 'ab'.repeat(32)
const PEER = '12D3KooWHonest'

describe('work tags (protocol/work-tag.ts)', () => {
  it('is the first 16 bytes of keccak256(domain, digest, signer): bound to both the run and the signer', () => {
    const tag = workTag(DIGEST, PEER)
    const expected = keccak256(concat([toUtf8Bytes('jobmesh/work-tag/v1'), DIGEST, toUtf8Bytes(PEER)])).slice(0, 2 + 2 * WORK_TAG_BYTES)
    expect('0x' + Buffer.from(tag).toString('hex')).toBe(expected)
    expect(isWorkTag(tag, DIGEST, PEER)).toBe(true)
    // another signer, another run: another tag; a copied tag does not check for the copier
    expect(isWorkTag(tag, DIGEST, '12D3KooWCopier')).toBe(false)
    expect(isWorkTag(tag, '0x' + 'ac'.repeat(32), PEER)).toBe(false)
    expect(isWorkTag(workTag(DIGEST.toUpperCase().replace('0X', '0x'), PEER), DIGEST, PEER)).toBe(true)
  })

  it('rejects a missing or truncated tag, and bad input with InvalidArgumentError', () => {
    expect(isWorkTag(undefined, DIGEST, PEER)).toBe(false)
    expect(isWorkTag(workTag(DIGEST, PEER).subarray(0, 8), DIGEST, PEER)).toBe(false)
    expect(() => workTag('0x1234', PEER)).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
    expect(() => workTag(DIGEST, '')).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
  })
})
