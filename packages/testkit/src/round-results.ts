import { doneMicroJobs, RESULTS_MAP, recordVerifier } from '@jobmesh/peer/coord'
import { macroDocName, roundDocName } from '@jobmesh/peer/crdt'
import type { RecordVerifier } from '@jobmesh/peer/coord'
import type { DocStore } from '@jobmesh/peer/crdt'

type ResultsMap = Parameters<typeof doneMicroJobs>[0]

/**
 * The `results` maps of a job round's MacroJob docs that a doc store holds open (docs/coordination.md, A doc per
 * MacroJob): what a peer of the job can read of its results now.
 */
export function heldResults (docs: Pick<DocStore, 'get'>, jobId: string, macroJobs: number, round = 0): ResultsMap[] {
  const roundDoc = roundDocName(jobId.toLowerCase(), round)
  const out: ResultsMap[] = []
  for (let m = 0; m < macroJobs; m++) {
    const doc = docs.get(macroDocName(roundDoc, m))
    if (doc != null) out.push(doc.getMap<Uint8Array>(RESULTS_MAP))
  }
  return out
}

/** MicroJobs (`m.i`) with a valid result in their MacroJob's doc, of the docs a doc store holds (see {@link heldResults}). */
export function heldDone (docs: Pick<DocStore, 'get'>, jobId: string, macroJobs: number,
  options: { round?: number, scope?: string, verifier?: RecordVerifier } = {}): Set<string> {
  const verifier = options.verifier ?? recordVerifier()
  const scope = options.scope ?? jobId.toLowerCase()
  const roundDoc = roundDocName(jobId.toLowerCase(), options.round ?? 0)
  const done = new Set<string>()
  for (let m = 0; m < macroJobs; m++) {
    const doc = docs.get(macroDocName(roundDoc, m))
    if (doc == null) continue
    // a MacroJob doc's records of another MacroJob are nobody's results
    for (const key of doneMicroJobs(doc.getMap<Uint8Array>(RESULTS_MAP), scope, verifier)) if (key.startsWith(`${m}.`)) done.add(key)
  }
  return done
}
