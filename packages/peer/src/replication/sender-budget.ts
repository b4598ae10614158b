import { ReplicaRefusedError, ReplicationBudgetError } from './errors.js'

export interface SenderBudgetInit {
  /** Most bytes one request may make this peer hold (its manifest and the outputs' `size`s). */
  maxRequestBytes: number
  /** Most bytes one sender may make this peer hold per `windowMs`. */
  maxSenderBytes: number
  windowMs: number
  clock(): number
}

/**
 * The bytes `outputs` requests make this peer hold, per sender and window. A manifest's fetch is charged once per
 * CID and window, whatever it turns out to be (a blob that is not a manifest is stored all the same); its outputs
 * once more when they are asked for. A finalizer's retries of one manifest cost nothing more.
 */
export interface SenderBudget {
  /**
   * Most bytes a fetch of the manifest may take: what was charged for it before, else what the sender has left.
   * @throws ReplicationBudgetError when it has nothing left
   */
  manifestLimit(sender: string, manifestCid: string): number
  /** Charges a manifest's fetch (`bytes`: what it took, or its whole limit when it failed); once per CID and window. */
  chargeManifest(sender: string, manifestCid: string, bytes: number): void
  /**
   * Charges the outputs a manifest lists (their `size`s); once per manifest and window.
   * @throws ReplicationBudgetError past a budget, ReplicaRefusedError for an entry without a valid size
   */
  chargeOutputs(sender: string, manifestCid: string, manifestBytes: number, entries: ReadonlyArray<{ size: unknown }>): void
}

/** What one sender made this peer hold since `since`: the fetches charged (with their bytes), the outputs charged. */
interface SenderWindow { since: number, bytes: number, fetched: Map<string, number>, manifests: Set<string> }

export function senderBudget (init: SenderBudgetInit): SenderBudget {
  const spent = new Map<string, SenderWindow>()

  /** The sender's spending in its current window (windows past `windowMs` are dropped). */
  const windowOf = (sender: string): SenderWindow => {
    const now = init.clock()
    for (const [peer, w] of spent) if (now - w.since >= init.windowMs) spent.delete(peer)
    let w = spent.get(sender)
    if (w === undefined) {
      w = { since: now, bytes: 0, fetched: new Map<string, number>(), manifests: new Set<string>() }
      spent.set(sender, w)
    }
    return w
  }

  const over = (sender: string, w: SenderWindow, more: number): ReplicationBudgetError =>
    new ReplicationBudgetError(`${sender} asked for ${w.bytes} + ${more} bytes (limit ${init.maxSenderBytes} per ${init.windowMs} ms)`)

  return {
    manifestLimit (sender, manifestCid) {
      const w = windowOf(sender)
      const charged = w.fetched.get(manifestCid)
      if (charged !== undefined) return charged
      const left = Math.min(init.maxRequestBytes, init.maxSenderBytes - w.bytes)
      if (left <= 0) throw over(sender, w, 0)
      return left
    },
    chargeManifest (sender, manifestCid, bytes) {
      const w = windowOf(sender)
      if (w.fetched.has(manifestCid)) return
      w.bytes += bytes
      w.fetched.set(manifestCid, bytes)
    },
    chargeOutputs (sender, manifestCid, manifestBytes, entries) {
      let bytes = 0
      for (const e of entries) {
        if (typeof e.size !== 'number' || !Number.isSafeInteger(e.size) || e.size < 0) {
          throw new ReplicaRefusedError(`manifest ${manifestCid} lists an output without a valid size`)
        }
        bytes += e.size
      }
      if (manifestBytes + bytes > init.maxRequestBytes) {
        throw new ReplicationBudgetError(`manifest ${manifestCid} names ${manifestBytes + bytes} bytes (limit ${init.maxRequestBytes} per request)`)
      }
      const w = windowOf(sender)
      if (w.manifests.has(manifestCid)) return
      if (w.bytes + bytes > init.maxSenderBytes) throw over(sender, w, bytes)
      w.bytes += bytes
      w.manifests.add(manifestCid)
    }
  }
}
