import { MANIFEST_VERSION } from './constants.js'
import { InvalidManifestError } from './errors.js'
import { resultTree } from '../protocol/index.js'
import type { PositionalTree, ResultLeaf } from '../protocol/index.js'

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
  /** Wallet paid for this MicroJob (the signer's payout address; the zero address when it has none). */
  payee: string
}

/** The manifest JSON (added to IPFS; its CID goes on chain with `submitResults`). */
export interface Manifest {
  version: number
  jobId: string
  resultRoot: string
  /** Every MicroJob in global order (`macroIndex * microJobsPerMacro + index`). */
  microJobs: ManifestEntry[]
}

export function resultLeaves (manifest: Pick<Manifest, 'microJobs'>): ResultLeaf[] {
  return manifest.microJobs.map(e => ({ microId: e.microId, macroIndex: e.macroIndex, index: e.index, outputHash: e.outputHash, payee: e.payee }))
}

/** The positional result tree of a manifest, checked against its root. @throws InvalidManifestError */
export function manifestTree (manifest: Manifest): PositionalTree<ResultLeaf> {
  let results: PositionalTree<ResultLeaf>
  try {
    results = resultTree(resultLeaves(manifest))
  } catch (err) {
    throw new InvalidManifestError(`manifest of ${manifest.jobId} has bad leaves: ${(err as Error).message}`, { cause: err })
  }
  if (results.root !== manifest.resultRoot.toLowerCase()) {
    throw new InvalidManifestError(`manifest of ${manifest.jobId}: its leaves do not give its root`)
  }
  return results
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
      typeof m.resultRoot !== 'string') {
    throw new InvalidManifestError(`unsupported or malformed manifest (version ${String(m?.version)})`)
  }
  return m
}
