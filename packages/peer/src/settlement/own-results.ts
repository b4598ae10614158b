import { microKey } from '../coord/index.js'
import { payeeResolver } from '../jobs/index.js'
import { toHex } from '../protocol/index.js'
import { isWorkTag, workTag } from '../protocol/index.js'
import type { RoundRecords } from './sample.js'
import type { ManifestEntry } from './manifest.js'
import type { SettlementComponents } from './types.js'

/** A manifest entry this node signs a result for (term 0), with the work tag of its own re-run. */
export interface OwnResult extends ManifestEntry {
  workTag?: Uint8Array
}

/**
 * Who is paid for the leaves the finalizer re-ran because their recorded output was wrong and withheld
 * (`ensureOutputs`, `replaceAs`: as returned, this node): another peer's trusted result with the re-run's output and
 * a work tag that checks against the re-run's execution digest (`digests`, by MicroJob key), made under a lease,
 * when the round has one (it did that work), else this node, which must then sign a result of its own
 * (`RoundRecords.writeOwn`: a verifier accepts a leaf's payee only when that payee signed a result with the correct
 * output and work tag, and it reads the results from the submitter's copy of the round's doc). Returns the entries
 * as they go in the manifest, and those this node must sign.
 */
export async function standIns (components: Pick<SettlementComponents, 'docs' | 'chain'>, records: RoundRecords, replaced: readonly ManifestEntry[],
  digests: ReadonlyMap<string, string>, options: { signal?: AbortSignal } = {}): Promise<{ entries: ManifestEntry[], own: OwnResult[] }> {
  const payee = payeeResolver(components, options)
  const entries: ManifestEntry[] = []
  const own: OwnResult[] = []
  for (const e of replaced) {
    const digest = digests.get(microKey(e.macroIndex, e.index))
    const { all } = await records.of(e)
    const other = digest == null
      ? undefined
      : all
        .filter(r => toHex(r.outputHash) === e.outputHash.toLowerCase() && r.signer !== e.signer && r.term > 0 && isWorkTag(r.workTag, digest, r.signer))
        .sort((a, b) => b.term - a.term)[0]
    if (other != null) {
      entries.push({ ...e, signer: other.signer, payee: await payee(other.signer) })
    } else {
      entries.push(e)
      own.push(digest == null ? e : { ...e, workTag: workTag(digest, e.signer) })
    }
  }
  return { entries, own }
}
