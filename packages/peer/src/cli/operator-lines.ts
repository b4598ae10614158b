import { terminalSafe } from './terminal-text.js'
import type { EventLog, PeerEvent } from '../observe/index.js'
import type { SettlementDuty } from '../settlement/index.js'

/** Event kinds an operator sees on stdout (errors always go to stderr). */
const PRINTED = new Set<PeerEvent['kind']>(['finalized', 'verified', 'settled', 'claimed', 'reannounced', 'drew', 'probed', 'paused', 'model', 'job:complete', 'job:waiting'])

/** `HH:MM:SS` in UTC. */
function clock (at: number): string {
  return new Date(at).toISOString().slice(11, 19)
}

/**
 * Prints the peer's notable events for its operator: finalizations, verifications, settlements, claims and models
 * on stdout, errors on stderr (visible without DEBUG), starting with those recorded before it was called. Returns a
 * function that stops printing.
 */
export function printPeerEvents (events: EventLog, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): () => void {
  const print = (e: PeerEvent): void => {
    // an event's text carries what the network said (a job's abort message, a failure reason): one line, no controls
    if (e.level === 'error') err.write(`${clock(e.at)} error ${terminalSafe(e.text)}\n`)
    else if (PRINTED.has(e.kind)) out.write(`${clock(e.at)} ${terminalSafe(e.text)}\n`)
  }
  const onEvent = (evt: CustomEvent<PeerEvent>): void => { print(evt.detail) }
  // what happened while the peer started (a model fetched at once, an early error) comes first
  for (const e of events.recent()) print(e)
  events.addEventListener('event', onEvent)
  return () => { events.removeEventListener('event', onEvent) }
}

/** What a stop says of each duty it keeps for the next start, and what a long stop costs (docs/settlement.md). */
const DUTY_LINES: Record<SettlementDuty['kind'], string> = {
  finalize: 'its finalization (this node completed the job); another peer of the job takes it over if this node stays down',
  settle: 'the verifier draw of this node\'s submission, then its proof and settlement; 16 blocks after the draw\'s entropy ' +
    'block another node may draw it and take the late-draw bounty (5 % of the bond) out of this node\'s stake',
  verify: 'this node\'s verification (it was drawn); a commit or reveal missed by its deadline costs the verifier\'s bond'
}

/**
 * What `jobmesh start` prints at a stop that keeps settlement duties for the next start: each, and that the chain's
 * deadlines run while the node is down. Nothing when there are none.
 */
export function dutyLines (duties: readonly SettlementDuty[]): string[] {
  if (duties.length === 0) return []
  return [
    `kept for the next start (${duties.length} ${duties.length === 1 ? 'duty' : 'duties'}; the chain's deadlines run while this node is down: start it again soon):`,
    ...duties.map(d => `  job ${d.jobId}: ${DUTY_LINES[d.kind]}`)
  ]
}
