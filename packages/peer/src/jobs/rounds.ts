import type { RecordVerifier } from '../coord/index.js'
import type { AbortOptions } from '@libp2p/interface'

/**
 * Processing rounds (docs/settlement.md, "Rounds"). A job's round is the number of times its results were rejected
 * on chain (`jobs(jobId).rejections`). Round r is a unit of work of its own: its CRDT doc (`roundDocName`), its
 * gossip topics and the signing domains of its leases and results are all keyed by {@link roundKey}, so nothing of
 * an earlier round (a MacroJob lease, a room snapshot, a result record) is valid in a later one.
 */

/** The id a round's topics and signing domains use: the jobId for round 0, `<jobId>/r<round>` after rejections. */
export function roundKey (jobId: string, round: number): string {
  return round === 0 ? jobId : `${jobId}/r${round}`
}

/** The round a JobAnnouncement names (absent = 0). */
export function announcedRound (announcement: { round?: number }): number {
  return announcement.round ?? 0
}

/**
 * Where the processor learns whom not to trust in a round: the settlement service implements it from the chain
 * (`JobRejected` submitters) and the peer profiles (address -> PeerId).
 */
export interface RoundOracle {
  /** PeerIds whose records must not count in `round` of `jobId` (submitters slashed for this job before it). */
  excluded(jobId: string, round: number, options?: AbortOptions): Promise<ReadonlySet<string>>
}

/**
 * A record verifier that treats every record signed by an excluded PeerId as invalid (absent). Used for the results
 * of a round > 0: a slashed submitter's results neither count as progress nor complete the job.
 */
export function excludingVerifier (verifier: RecordVerifier, excluded: ReadonlySet<string>): RecordVerifier {
  if (excluded.size === 0) return verifier
  return {
    // an excluded signer's own records are still trusted as signed; `verify` is what excludes them
    trust: (envelope, domain, record) => { verifier.trust(envelope, domain, record) },
    verify (envelope, domain) {
      const record = verifier.verify(envelope, domain)
      return record == null || excluded.has(record.signer) ? undefined : record
    }
  }
}
