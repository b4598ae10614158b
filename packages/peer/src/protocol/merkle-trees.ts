import { createMerkleTree } from './merkle.js'
import { jobLeafHashBytes, payoutLeafHashBytes, resultLeafHashBytes } from './merkle-leaves.js'
import type { MerkleTree } from './merkle.js'
import type { PayoutLeaf, ResultLeaf } from './merkle-leaves.js'
import type { MicroJobDescriptor } from './slicing.js'

/** The job tree over MicroJob descriptors; its root is the `jobRoot` stored on chain at job creation. */
export function jobTree (microJobs: readonly MicroJobDescriptor[]): MerkleTree<MicroJobDescriptor> {
  return createMerkleTree(microJobs, jobLeafHashBytes)
}

/** The result tree over `(microId, macroIndex, index, outputHash)`; its root is `resultRoot`. */
export function resultTree (results: readonly ResultLeaf[]): MerkleTree<ResultLeaf> {
  return createMerkleTree(results, resultLeafHashBytes)
}

/** The payout tree over `(payee, amount)`; its root is `payoutRoot`, payees `claim` with its proofs. */
export function payoutTree (payouts: readonly PayoutLeaf[]): MerkleTree<PayoutLeaf> {
  return createMerkleTree(payouts, payoutLeafHashBytes)
}
