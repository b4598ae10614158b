import { StandardMerkleTree } from '@openzeppelin/merkle-tree'
import { describe, expect, it } from 'vitest'
import {
  JOB_LEAF_TYPES, jobLeafHash, jobTree, positionalDepth, resultLeafHash, resultTree, sliceJob, verifyPositionalProof, verifyProof
} from '../../src/protocol/index.js'

const JOB_ID = '0x' + '33'.repeat(32)
const micro = sliceJob({ seed: 5n, blockCount: 23, slicing: { macroJobs: 3, microJobsPerMacro: 4, blocksPerMicro: 2 } }, JOB_ID).microJobs
const PAYEES = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000B2']
const results = micro.map((d, g) => ({
  microId: d.microId, macroIndex: d.macroIndex, index: d.index, outputHash: '0x' + g.toString(16).padStart(64, '0'), payee: PAYEES[g % 2]
}))

describe('Merkle trees', () => {
  it('roots and proofs equal OpenZeppelin StandardMerkleTree', () => {
    const oz = StandardMerkleTree.of(micro.map(d => [d.microId, d.macroIndex, d.index, d.start, d.end]), [...JOB_LEAF_TYPES])
    const tree = jobTree(micro)
    expect(tree.root).toBe(oz.root)
    for (let i = 0; i < micro.length; i++) expect(tree.getProof(i)).toEqual(oz.getProof(i))
  })

  it('the result tree is positional: each leaf proves at its own position only, with depth ceil(log2 n) siblings', () => {
    const tree = resultTree(results)
    expect(tree.depth).toBe(positionalDepth(12)).toBe(4)
    for (let g = 0; g < results.length; g++) {
      const proof = tree.getProof(g)
      expect(proof).toHaveLength(4)
      expect(verifyPositionalProof(tree.root, resultLeafHash(results[g]), g, 4, proof)).toBe(true)
      expect(verifyPositionalProof(tree.root, resultLeafHash(results[g]), g ^ 1, 4, proof)).toBe(false)
    }
    // the same outputs paying another wallet give another root
    const stolen = resultTree(results.map(r => ({ ...r, payee: PAYEES[0] })))
    expect(stolen.root).not.toBe(tree.root)
    expect(resultTree([results[0]]).root).toBe(resultLeafHash(results[0]))
  })

  it('a single-leaf tree has the leaf hash as root and an empty proof', () => {
    const tree = jobTree([micro[0]])
    expect(tree.root).toBe(jobLeafHash(micro[0]))
    expect(tree.getProof(0)).toEqual([])
    expect(verifyProof(tree.root, jobLeafHash(micro[0]), [])).toBe(true)
  })

  it('proofs by index and by value verify', () => {
    const tree = jobTree(micro)
    for (let i = 0; i < micro.length; i++) {
      expect(verifyProof(tree.root, tree.leafHash(micro[i]), tree.getProof(i))).toBe(true)
      expect(tree.verify(micro[i], tree.getProof(micro[i]))).toBe(true)
    }
    const results2 = resultTree(results)
    for (let i = 0; i < results.length; i++) expect(results2.verify(i, results2.getProof(i))).toBe(true)
  })

  it('a tampered leaf, proof or root fails', () => {
    const tree = jobTree(micro)
    const proof = tree.getProof(5)
    const leaf = tree.leafHash(micro[5])
    expect(verifyProof(tree.root, tree.leafHash({ ...micro[5], end: micro[5].end + 1 }), proof)).toBe(false)
    expect(tree.verify({ ...micro[5], start: micro[5].start + 1 }, proof)).toBe(false)
    const badProof = [...proof]
    badProof[1] = '0x' + 'ee'.repeat(32)
    expect(verifyProof(tree.root, leaf, badProof)).toBe(false)
    expect(verifyProof(tree.root, leaf, proof.slice(1))).toBe(false)
    expect(verifyProof('0x' + '00'.repeat(32), leaf, proof)).toBe(false)
    expect(verifyProof(tree.root, leaf, ['0x12'])).toBe(false)
    expect(verifyProof(tree.root, leaf, proof)).toBe(true)
  })

  it('gives typed errors for an empty tree and unknown leaves', () => {
    expect(() => jobTree([])).toThrow(expect.objectContaining({ name: 'EmptyTreeError' }))
    expect(() => resultTree([])).toThrow(expect.objectContaining({ name: 'EmptyTreeError' }))
    const tree = resultTree(results)
    expect(() => tree.getProof(12)).toThrow(expect.objectContaining({ name: 'LeafNotFoundError' }))
    const jt = jobTree(micro)
    expect(() => jt.getProof({ ...micro[0], end: 99 })).toThrow(expect.objectContaining({ name: 'LeafNotFoundError' }))
    expect(() => resultTree([{ ...results[0], payee: '0x12' }])).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
  })

  it('builds a 100 000-leaf job tree', () => {
    const big = sliceJob({ seed: 9n, blockCount: 100_000, slicing: { macroJobs: 100, microJobsPerMacro: 1000, blocksPerMicro: 1 } }, JOB_ID).microJobs
    const t0 = performance.now()
    const tree = jobTree(big)
    console.info(`jobTree: 100 000 leaves in ${(performance.now() - t0).toFixed(0)} ms`)
    expect(verifyProof(tree.root, tree.leafHash(big[77_777]), tree.getProof(77_777))).toBe(true)
    expect(tree.getProof(77_777).length).toBeGreaterThanOrEqual(16)
  })
})
