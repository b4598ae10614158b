import { fromHex, keccak256Bytes, toHex } from './bytes.js'
import { EmptyTreeError, LeafNotFoundError } from './errors.js'

/**
 * A Merkle tree with OpenZeppelin's layout and hashing: leaves are sorted by hash, inner nodes are
 * `keccak256(sorted(a, b))`, proofs verify with `MerkleProof.verify`. Roots equal `StandardMerkleTree.of(values,
 * types).root` for the same values and leaf encoding.
 */
export interface MerkleTree<T> {
  /** 32-byte hex root. */
  readonly root: string
  /** Number of leaves. */
  readonly length: number
  /** The leaf hash of a value (hex), as proofs and `verifyProof` use it. */
  leafHash(value: T): string
  /** Proof (hex sibling hashes, leaf to root) for the value at input position `leaf`, or for the value itself. */
  getProof(leaf: number | T): string[]
  /** Whether `proof` proves the value at position `leaf` (or the value) into this tree's root. */
  verify(leaf: number | T, proof: string[]): boolean
}

function compareBytes (a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    if (a[i] !== b[i]) return a[i] - b[i]
  }
  return 0
}

const scratch = new Uint8Array(64)

function nodeHash (a: Uint8Array, b: Uint8Array): Uint8Array {
  if (compareBytes(a, b) <= 0) {
    scratch.set(a, 0)
    scratch.set(b, 32)
  } else {
    scratch.set(b, 0)
    scratch.set(a, 32)
  }
  return keccak256Bytes(scratch)
}

/** Folds a leaf hash through a proof (sorted-pair keccak) and compares the result with `root`. Never throws. */
export function verifyProof (root: string, leafHash: string, proof: string[]): boolean {
  try {
    let node: Uint8Array = fromHex(leafHash)
    if (node.length !== 32) return false
    for (const sibling of proof) {
      const s = fromHex(sibling)
      if (s.length !== 32) return false
      node = nodeHash(node, s)
    }
    return toHex(node) === root.toLowerCase()
  } catch {
    return false
  }
}

/** Builds a MerkleTree over `values` whose leaf hashes (32 bytes) come from `hashLeaf`. */
export function createMerkleTree<T> (values: readonly T[], hashLeaf: (value: T) => Uint8Array): MerkleTree<T> {
  const n = values.length
  if (n === 0) throw new EmptyTreeError('a Merkle tree needs at least one leaf')
  const leaves = values.map(hashLeaf)
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => compareBytes(leaves[a], leaves[b]))
  const size = 2 * n - 1
  const tree: Uint8Array[] = new Array(size)
  const treeIndex = new Int32Array(n)
  for (let k = 0; k < n; k++) {
    tree[size - 1 - k] = leaves[order[k]]
    treeIndex[order[k]] = size - 1 - k
  }
  for (let i = size - 1 - n; i >= 0; i--) tree[i] = nodeHash(tree[2 * i + 1], tree[2 * i + 2])
  const root = toHex(tree[0])
  let lookup: Map<string, number> | undefined

  const indexOf = (leaf: number | T): number => {
    if (typeof leaf === 'number') {
      if (!Number.isInteger(leaf) || leaf < 0 || leaf >= n) throw new LeafNotFoundError(`no leaf at position ${leaf}`)
      return leaf
    }
    lookup ??= new Map(leaves.map((h, i) => [toHex(h), i]))
    const i = lookup.get(toHex(hashLeaf(leaf)))
    if (i === undefined) throw new LeafNotFoundError('value is not a leaf of this tree')
    return i
  }

  return {
    root,
    length: n,
    leafHash: (value: T): string => toHex(hashLeaf(value)),
    getProof (leaf: number | T): string[] {
      let t = treeIndex[indexOf(leaf)]
      const proof: string[] = []
      while (t > 0) {
        proof.push(toHex(tree[t % 2 === 1 ? t + 1 : t - 1]))
        t = Math.floor((t - 1) / 2)
      }
      return proof
    },
    verify (leaf: number | T, proof: string[]): boolean {
      const hash = typeof leaf === 'number' ? toHex(leaves[indexOf(leaf)]) : toHex(hashLeaf(leaf))
      return verifyProof(root, hash, proof)
    }
  }
}

