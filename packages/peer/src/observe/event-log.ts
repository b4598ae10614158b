import { TypedEvents } from '../coord/index.js'
import { DEFAULT_RECENT_EVENTS } from './constants.js'

/** What happened, in the words an operator reads on stdout and on the dashboard. */
export type PeerEventKind =
  'peer:connect' | 'peer:disconnect' | 'ownership' | 'job:complete' | 'job:failed' | 'job:waiting' | 'microjob:error' |
  'turn:unanswered' | 'finalized' | 'verified' | 'settled' | 'claimed' | 'refunded' | 'reannounced' | 'drew' | 'probed' | 'paused' | 'model' |
  'error'

export interface PeerEvent {
  /** Increasing number, per peer. */
  seq: number
  /** Unix ms. */
  at: number
  kind: PeerEventKind
  level: 'info' | 'error'
  /** One line for people. */
  text: string
  jobId?: string
  /** Wei, as a decimal string (claims). */
  amountWei?: string
}

export interface EventLogEvents {
  event: PeerEvent
}

/** A typed event stream of a peer's notable events, keeping the most recent ones. */
export class EventLog extends TypedEvents<EventLogEvents> {
  private readonly buffer: PeerEvent[] = []
  private readonly capacity: number
  private seq = 0

  constructor (capacity = DEFAULT_RECENT_EVENTS) {
    super()
    this.capacity = capacity
  }

  /** Records an event and dispatches it to the listeners. */
  push (event: Omit<PeerEvent, 'seq' | 'at'> & { at?: number }): PeerEvent {
    const full: PeerEvent = { ...event, seq: ++this.seq, at: event.at ?? Date.now() }
    this.buffer.push(full)
    if (this.buffer.length > this.capacity) this.buffer.shift()
    this.safeDispatch('event', full)
    return full
  }

  /** The kept events, oldest first. */
  recent (): PeerEvent[] {
    return [...this.buffer]
  }
}
