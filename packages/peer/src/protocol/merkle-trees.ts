import { createMerkleTree } from './merkle.js'
import { jobLeafHashBytes, resultLeafHashBytes } from './merkle-leaves.js'
import { createPositionalTree } from './positional-tree.js'
import type { MerkleTree } from './merkle.js'
import type { ResultLeaf } from './merkle-leaves.js'
import type { PositionalTree } from './positional-tree.js'
import type { MicroJobDescriptor } from './slicing.js'

/** The job tree over MicroJob descriptors; its root is the `jobRoot` stored on chain at job creation. */
export function jobTree (microJobs: readonly MicroJobDescriptor[]): MerkleTree<MicroJobDescriptor> {
  return createMerkleTree(microJobs, jobLeafHashBytes)
}

/**
 * The result tree over `(microId, macroIndex, index, outputHash, payee)`, one leaf per MicroJob at its global
 * position `macroIndex * microJobsPerMacro + index` (pass the leaves in that order, all of them); its root is
 * `resultRoot`. Positional, so a root holds exactly one leaf per MicroJob: nobody can add a second, self-paying leaf
 * for a MicroJob and claim it (docs/settlement.md).
 */
export function resultTree (results: readonly ResultLeaf[]): PositionalTree<ResultLeaf> {
  return createPositionalTree(results, resultLeafHashBytes)
}
