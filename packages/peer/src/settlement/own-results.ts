import { bytesToHex, payeeResolver } from '../jobs/index.js'
import type { RoundRecords } from './sample.js'
import type { ManifestEntry } from './manifest.js'
import type { SettlementComponents } from './types.js'

/**
 * Who is paid for the leaves the finalizer re-ran because their recorded output was wrong and withheld
 * (`ensureOutputs`, `replaceAs`: as returned, this node): another peer's trusted result with the re-run's output
 * when the round has one (it did that work, under a lease), else this node, which must then sign a result of its own
 * (`RoundRecords.writeOwn`: a verifier accepts a leaf's payee only when that payee signed a result with the correct
 * output, and it reads the results from the submitter's copy of the round's doc). Returns the entries as they go in
 * the manifest, and those this node must sign.
 */
export async function standIns (components: Pick<SettlementComponents, 'docs' | 'chain'>, records: RoundRecords, replaced: readonly ManifestEntry[],
  options: { signal?: AbortSignal } = {}): Promise<{ entries: ManifestEntry[], own: ManifestEntry[] }> {
  const payee = payeeResolver(components, options)
  const entries: ManifestEntry[] = []
  const own: ManifestEntry[] = []
  for (const e of replaced) {
    const { all } = await records.of(e)
    const other = all
      .filter(r => bytesToHex(r.outputHash) === e.outputHash.toLowerCase() && r.signer !== e.signer && r.term > 0)
      .sort((a, b) => b.term - a.term)[0]
    if (other == null) {
      entries.push(e)
      own.push(e)
    } else {
      entries.push({ ...e, signer: other.signer, payee: await payee(other.signer) })
    }
  }
  return { entries, own }
}
