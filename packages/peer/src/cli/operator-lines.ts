import { terminalSafe } from './terminal-text.js'
import type { EventLog, PeerEvent } from '../observe/index.js'

/** Event kinds an operator sees on stdout (errors always go to stderr). */
const PRINTED = new Set<PeerEvent['kind']>(['finalized', 'verified', 'settled', 'claimed', 'reannounced', 'drew', 'probed', 'model', 'job:complete', 'job:waiting'])

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
