import { ownerIsKey, roundDocName, signedMap } from '../crdt/index.js'
import { FINAL_DOMAIN, FINAL_MAP } from './constants.js'
import { roundKey } from './rounds.js'
import type { JobsDocs } from './types.js'
import type { SignedMap } from '../crdt/index.js'
import type * as Y from 'yjs'

/** A finalization record in a job doc's `final` map (key = the finalizer's PeerId). */
export interface FinalRecord {
  manifestCid: string
  resultRoot: string
  /** Wallet of the submitter. */
  submitter: string
  txHash: string
  blockNumber: number
}

/** The `final` map of a round's doc; records are signed under `jobmesh/final/<roundKey>/<peerId>`. */
export function finalMap (doc: Y.Doc, jobId: string, round = 0): SignedMap {
  return signedMap(doc.getMap(FINAL_MAP), { domain: `${FINAL_DOMAIN}/${roundKey(jobId.toLowerCase(), round)}`, owner: ownerIsKey })
}

/** Every verified final record of a job's round (default round 0). */
export async function readFinalRecords (components: { docs: JobsDocs }, jobId: string,
  options: { signal?: AbortSignal, round?: number } = {}): Promise<Array<FinalRecord & { signer: string }>> {
  const round = options.round ?? 0
  const doc = await components.docs.open(roundDocName(jobId.toLowerCase(), round), { signal: options.signal })
  const out: Array<FinalRecord & { signer: string }> = []
  for (const [, entry] of finalMap(doc, jobId, round).entries()) {
    try {
      out.push({ ...(JSON.parse(new TextDecoder().decode(entry.payload)) as FinalRecord), signer: entry.signer })
    } catch {
      // malformed: absent
    }
  }
  return out
}
