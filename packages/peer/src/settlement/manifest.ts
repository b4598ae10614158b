import { MANIFEST_VERSION } from './constants.js'
import { InvalidManifestError } from './errors.js'
import { payoutTree, resultTree } from '../protocol/index.js'
import type { MerkleTree, PayoutLeaf, ResultLeaf } from '../protocol/index.js'

/** One MicroJob's counting result in a manifest. */
export interface ManifestEntry {
  microId: string
  macroIndex: number
  index: number
  /** Block range `[start, end)`. */
  start: number
  end: number
  /** sha256 of the output bytes (0x hex). */
  outputHash: string
  /** Where the output is: a CID string (fetch as `ipfs://<cid>`). */
  outputCid: string
  /** Output size in bytes. */
  size: number
  /** PeerId of the processor whose result counts. */
  signer: string
}

/** A payout leaf in a manifest: amount as a decimal string. */
export interface ManifestPayout {
  payee: string
  amount: string
  /** Blocks this payee processed. */
  blocks: number
}

/** The manifest JSON (added to IPFS; its CID goes on chain with `submitResults`). */
export interface Manifest {
  version: number
  jobId: string
  resultRoot: string
  payoutRoot: string
  /** Every MicroJob in global order (`macroIndex * microJobsPerMacro + index`). */
  microJobs: ManifestEntry[]
  payouts: ManifestPayout[]
}

export function resultLeaves (manifest: Pick<Manifest, 'microJobs'>): ResultLeaf[] {
  return manifest.microJobs.map(e => ({ microId: e.microId, macroIndex: e.macroIndex, index: e.index, outputHash: e.outputHash }))
}

export function payoutLeaves (manifest: Pick<Manifest, 'payouts'>): PayoutLeaf[] {
  return manifest.payouts.map(p => ({ payee: p.payee, amount: BigInt(p.amount) }))
}

/** The result and payout trees of a manifest, checked against its roots. @throws InvalidManifestError */
export function manifestTrees (manifest: Manifest): { results: MerkleTree<ResultLeaf>, payouts: MerkleTree<PayoutLeaf> } {
  let results: MerkleTree<ResultLeaf>
  let payouts: MerkleTree<PayoutLeaf>
  try {
    results = resultTree(resultLeaves(manifest))
    payouts = payoutTree(payoutLeaves(manifest))
  } catch (err) {
    throw new InvalidManifestError(`manifest of ${manifest.jobId} has bad leaves: ${(err as Error).message}`, { cause: err })
  }
  if (results.root !== manifest.resultRoot.toLowerCase() || payouts.root !== manifest.payoutRoot.toLowerCase()) {
    throw new InvalidManifestError(`manifest of ${manifest.jobId}: its leaves do not give its roots`)
  }
  return { results, payouts }
}

export function encodeManifest (manifest: Manifest): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(manifest))
}

/** @throws InvalidManifestError */
export function decodeManifest (bytes: Uint8Array): Manifest {
  let m: Manifest
  try {
    m = JSON.parse(new TextDecoder().decode(bytes)) as Manifest
  } catch (err) {
    throw new InvalidManifestError('manifest is not JSON', { cause: err })
  }
  if (m == null || m.version !== MANIFEST_VERSION || typeof m.jobId !== 'string' || !Array.isArray(m.microJobs) ||
      !Array.isArray(m.payouts) || typeof m.resultRoot !== 'string' || typeof m.payoutRoot !== 'string') {
    throw new InvalidManifestError(`unsupported or malformed manifest (version ${String(m?.version)})`)
  }
  return m
}
