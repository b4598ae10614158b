import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { recordSigner, recordVerifier, RESULTS_MAP, resultTable } from '../coord/index.js'
import { roundDocName } from '../crdt/index.js'
import { bytesToHex, hexToBytes, payeeResolver, roundKey } from '../jobs/index.js'
import { rawOutputCid } from '../storage/index.js'
import type { RoundRecords } from './sample.js'
import type { ManifestEntry } from './manifest.js'
import type { SettlementComponents } from './types.js'

/**
 * Who is paid for the leaves the finalizer re-ran because their recorded output was wrong and withheld
 * (`ensureOutputs`, `replaceAs`: as returned, this node): another peer's trusted result with the re-run's output
 * when the round has one (it did that work, under a lease), else this node, which then signs a result of its own
 * (`writeOwnResults`). Returns the entries as they go in the manifest and those this node must sign.
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

/**
 * The finalizer's own signed results for the MicroJobs whose leaves pay it as a stand-in (`standIns`), written to
 * its copy of the round's doc: a verifier accepts a leaf's payee only when that payee signed a result with the
 * correct output, and it reads the results from the submitter's copy. Term 0 (no lease): the recorded result still
 * counts in the doc, so the job's progress and its other readers do not change.
 */
export async function writeOwnResults (components: Pick<SettlementComponents, 'docs' | 'privateKey'>, jobId: string, round: number,
  entries: readonly ManifestEntry[], options: { signal?: AbortSignal } = {}): Promise<void> {
  if (entries.length === 0) return
  const id = jobId.toLowerCase()
  const doc = await components.docs.open(roundDocName(id, round), { signal: options.signal })
  const self = peerIdFromPrivateKey(components.privateKey).toString()
  const results = resultTable({ signer: recordSigner(components.privateKey, self), verifier: recordVerifier() },
    doc.getMap<Uint8Array>(RESULTS_MAP), roundKey(id, round))
  doc.transact(() => {
    for (const e of entries) {
      results.write(e.macroIndex, e.index, {
        term: 0,
        outputHash: hexToBytes(e.outputHash),
        size: e.size,
        outputCid: e.outputCid === rawOutputCid(e.outputHash) ? undefined : e.outputCid
      })
    }
  })
}
