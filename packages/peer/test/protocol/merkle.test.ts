import { StandardMerkleTree } from '@openzeppelin/merkle-tree'
import { describe, expect, it } from 'vitest'
import {
  JOB_LEAF_TYPES, PAYOUT_LEAF_TYPES, RESULT_LEAF_TYPES, jobLeafHash, jobTree, payoutLeafHash, payoutTree, resultTree,
  sliceJob, verifyProof
} from '../../src/protocol/index.js'

const JOB_ID = '0x' + '33'.repeat(32)
const micro = sliceJob({ seed: 5n, blockCount: 23, slicing: { macroJobs: 3, microJobsPerMacro: 4, blocksPerMicro: 2 } }, JOB_ID).microJobs
const results = micro.map((d, g) => ({ microId: d.microId, macroIndex: d.macroIndex, index: d.index, outputHash: '0x' + g.toString(16).padStart(64, '0') }))
const payouts = [
  { payee: '0x00000000000000000000000000000000000000a1', amount: 10n ** 18n },
  { payee: '0x00000000000000000000000000000000000000B2', amount: 1n },
  { payee: '0x00000000000000000000000000000000000000c3', amount: 0n }
]

describe('Merkle trees', () => {
  it('roots and proofs equal OpenZeppelin StandardMerkleTree', () => {
    const oz = StandardMerkleTree.of(micro.map(d => [d.microId, d.macroIndex, d.index, d.start, d.end]), [...JOB_LEAF_TYPES])
    const tree = jobTree(micro)
    expect(tree.root).toBe(oz.root)
    for (let i = 0; i < micro.length; i++) expect(tree.getProof(i)).toEqual(oz.getProof(i))
    const ozResults = StandardMerkleTree.of(results.map(r => [r.microId, r.macroIndex, r.index, r.outputHash]), [...RESULT_LEAF_TYPES])
    expect(resultTree(results).root).toBe(ozResults.root)
    const ozPayouts = StandardMerkleTree.of(payouts.map(p => [p.payee, p.amount]), [...PAYOUT_LEAF_TYPES])
    expect(payoutTree(payouts).root).toBe(ozPayouts.root)
    expect(payoutLeafHash(payouts[1])).toBe(ozPayouts.leafHash([payouts[1].payee, payouts[1].amount]))
  })

  it('a single-leaf tree has the leaf hash as root and an empty proof', () => {
    const tree = jobTree([micro[0]])
    expect(tree.root).toBe(jobLeafHash(micro[0]))
    expect(tree.getProof(0)).toEqual([])
    expect(verifyProof(tree.root, jobLeafHash(micro[0]), [])).toBe(true)
  })

  it('proofs by index and by value verify', () => {
    const tree = resultTree(results)
    for (let i = 0; i < results.length; i++) {
      expect(verifyProof(tree.root, tree.leafHash(results[i]), tree.getProof(i))).toBe(true)
      expect(tree.verify(results[i], tree.getProof(results[i]))).toBe(true)
    }
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
    const tree = payoutTree(payouts)
    expect(() => tree.getProof(3)).toThrow(expect.objectContaining({ name: 'LeafNotFoundError' }))
    expect(() => tree.getProof({ payee: payouts[0].payee, amount: 2n })).toThrow(expect.objectContaining({ name: 'LeafNotFoundError' }))
    expect(() => payoutTree([{ payee: '0x12', amount: 1n }])).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
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
