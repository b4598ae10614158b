type Listener<D> = (evt: CustomEvent<D>) => void

/**
 * A small typed event emitter with the EventTarget calling convention (`addEventListener(type, evt =>
 * evt.detail)`), like libp2p's TypedEventEmitter but without a dependency on `main-event`.
 * `EventMap` maps event names to their `detail` types.
 */
export class TypedEvents<EventMap extends object> {
  private readonly listeners = new Map<string, Set<Listener<never>>>()

  addEventListener<K extends keyof EventMap & string> (type: K, listener: Listener<EventMap[K]>): void {
    let set = this.listeners.get(type)
    if (set == null) {
      set = new Set()
      this.listeners.set(type, set)
    }
    set.add(listener as Listener<never>)
  }

  removeEventListener<K extends keyof EventMap & string> (type: K, listener: Listener<EventMap[K]>): void {
    this.listeners.get(type)?.delete(listener as Listener<never>)
  }

  /** Dispatches to every listener; a throwing listener does not break the caller. */
  safeDispatch<K extends keyof EventMap & string> (type: K, detail: EventMap[K]): void {
    const set = this.listeners.get(type)
    if (set == null || set.size === 0) {
      return
    }
    const evt = new CustomEvent(type, { detail })
    for (const listener of [...set]) {
      try {
        (listener as Listener<EventMap[K]>)(evt)
      } catch {
        // listeners must not break the protocol
      }
    }
  }
}
