import { fromHex, keccak256Bytes, toHex } from './bytes.js'
import { EmptyTreeError, LeafNotFoundError } from './errors.js'

/**
 * A Merkle tree whose leaves keep their positions (as `JobEscrow`'s `Encoding.verifyAt` checks them): the leaf at
 * position p sits at index p of a level padded to the next power of two with zero hashes; a parent is
 * `keccak256(left ++ right)`; a proof is the `depth` siblings from leaf to root, `depth = ceil(log2 length)`.
 */
export interface PositionalTree<T> {
  /** 32-byte hex root. */
  readonly root: string
  /** Number of leaves. */
  readonly length: number
  /** Number of proof steps. */
  readonly depth: number
  /** The leaf hash of a value (hex). */
  leafHash(value: T): string
  /** The leaf hash at a position (hex). */
  leafHashAt(position: number): string
  /** Proof (hex siblings, leaf to root) of the leaf at `position`. */
  getProof(position: number): string[]
  /** Whether `proof` proves the leaf at `position` into this tree's root. */
  verify(position: number, proof: string[]): boolean
}

const ZERO = new Uint8Array(32)

function parent (a: Uint8Array, b: Uint8Array): Uint8Array {
  const buf = new Uint8Array(64)
  buf.set(a, 0)
  buf.set(b, 32)
  return keccak256Bytes(buf)
}

/** `ceil(log2 n)`: proof length of a positional tree with n leaves. */
export function positionalDepth (n: number): number {
  let d = 0
  while (2 ** d < n) d++
  return d
}

/** Folds `leafHash` at `position` through `proof` and compares with `root`. Never throws. */
export function verifyPositionalProof (root: string, leafHash: string, position: number, depth: number, proof: string[]): boolean {
  try {
    if (proof.length !== depth || !Number.isSafeInteger(position) || position < 0 || position >= 2 ** depth) return false
    let node: Uint8Array = fromHex(leafHash)
    if (node.length !== 32) return false
    for (let l = 0; l < depth; l++) {
      const s = fromHex(proof[l])
      if (s.length !== 32) return false
      node = Math.floor(position / 2 ** l) % 2 === 0 ? parent(node, s) : parent(s, node)
    }
    return toHex(node) === root.toLowerCase()
  } catch {
    return false
  }
}

/** Builds a positional tree over `values` (position = array index) with leaf hashes from `hashLeaf`. */
export function createPositionalTree<T> (values: readonly T[], hashLeaf: (value: T) => Uint8Array): PositionalTree<T> {
  const n = values.length
  if (n === 0) throw new EmptyTreeError('a Merkle tree needs at least one leaf')
  const depth = positionalDepth(n)
  const levels: Uint8Array[][] = [values.map(hashLeaf)]
  while (levels[0].length < 2 ** depth) levels[0].push(ZERO)
  for (let l = 0; l < depth; l++) {
    const below = levels[l]
    const next: Uint8Array[] = []
    for (let i = 0; i < below.length; i += 2) next.push(parent(below[i], below[i + 1]))
    levels.push(next)
  }
  const root = toHex(levels[depth][0])
  const check = (position: number): void => {
    if (!Number.isInteger(position) || position < 0 || position >= n) throw new LeafNotFoundError(`no leaf at position ${position}`)
  }
  return {
    root,
    length: n,
    depth,
    leafHash: (value: T): string => toHex(hashLeaf(value)),
    leafHashAt (position: number): string {
      check(position)
      return toHex(levels[0][position])
    },
    getProof (position: number): string[] {
      check(position)
      const proof: string[] = []
      let p = position
      for (let l = 0; l < depth; l++) {
        proof.push(toHex(levels[l][p ^ 1]))
        p >>= 1
      }
      return proof
    },
    verify (position: number, proof: string[]): boolean {
      check(position)
      return verifyPositionalProof(root, toHex(levels[0][position]), position, depth, proof)
    }
  }
}
