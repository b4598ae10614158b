import { logger } from '@libp2p/logger'
import { BaseDatastore, MemoryDatastore } from 'datastore-core'
import { Key } from 'interface-datastore'
import { DEFAULT_PEER_RECORDS_FLUSH_MS } from './constants.js'
import type { AbortOptions } from '@libp2p/interface'
import type { Batch, Datastore, KeyQuery, Pair, Query } from 'interface-datastore'

const log = logger('jobmesh:node:peer-records')

/** The namespace of libp2p's peer store (@libp2p/peer-store keeps one record per peer under it). */
const PEERS_PREFIX = '/peers/'

export interface PeerRecordsInit {
  /** How often changed records are written to the durable store (default {@link DEFAULT_PEER_RECORDS_FLUSH_MS}). */
  flushMs?: number
}

/** A datastore that keeps libp2p's peer records in memory; `close` writes them back and stops the timer. */
export interface PeerRecordsDatastore extends Datastore {
  /** Writes the records changed since the last write to the durable store. */
  flush(): Promise<void>
  /** Flushes and stops writing; the durable store stays open (its owner closes it). */
  close(): Promise<void>
}

/**
 * `durable` with libp2p's peer records (`/peers/...`) held in memory: read from it once here, written back every
 * `flushMs` and on close. libp2p reads and writes a peer's record on every stream it opens or accepts (it merges the
 * stream's protocol into the record) and gossipsub on every mesh change; on LevelDB that was ~11 % of a working peer
 * process's CPU (docs/architecture.md, "Peer records in memory"). Every other key goes straight to `durable`.
 */
export async function peerRecords (durable: Datastore, init: PeerRecordsInit = {}): Promise<PeerRecordsDatastore> {
  const memory = new MemoryDatastore()
  for await (const { key, value } of durable.query({ prefix: PEERS_PREFIX })) await memory.put(key, value)
  return new PeerRecords(durable, memory, init.flushMs ?? DEFAULT_PEER_RECORDS_FLUSH_MS)
}

const isPeerKey = (key: Key): boolean => key.toString().startsWith(PEERS_PREFIX)

class PeerRecords extends BaseDatastore implements PeerRecordsDatastore {
  private readonly dirty = new Set<string>()
  private flushing: Promise<void> = Promise.resolve()
  private readonly timer: ReturnType<typeof setInterval>

  constructor (private readonly durable: Datastore, private readonly memory: MemoryDatastore, flushMs: number) {
    super()
    this.timer = setInterval(() => { this.flush().catch(err => { log.error('writing peer records failed: %e', err) }) }, flushMs)
    this.timer.unref()
  }

  override async put (key: Key, value: Uint8Array, options?: AbortOptions): Promise<Key> {
    if (!isPeerKey(key)) return await this.durable.put(key, value, options)
    this.dirty.add(key.toString())
    return this.memory.put(key, value)
  }

  override async get (key: Key, options?: AbortOptions): Promise<Uint8Array> {
    return isPeerKey(key) ? this.memory.get(key) : await this.durable.get(key, options)
  }

  override async has (key: Key, options?: AbortOptions): Promise<boolean> {
    return isPeerKey(key) ? this.memory.has(key) : await this.durable.has(key, options)
  }

  override async delete (key: Key, options?: AbortOptions): Promise<void> {
    if (!isPeerKey(key)) { await this.durable.delete(key, options); return }
    this.dirty.add(key.toString())
    this.memory.delete(key)
  }

  /** The durable store's own batch for every other key (atomic on LevelDB), the records applied in memory with it. */
  override batch (): Batch {
    const durable = this.durable.batch()
    const records: Array<{ key: Key, value?: Uint8Array }> = []
    return {
      put: (key, value) => { if (isPeerKey(key)) records.push({ key, value }); else durable.put(key, value) },
      delete: (key) => { if (isPeerKey(key)) records.push({ key }); else durable.delete(key) },
      commit: async (options) => {
        await durable.commit(options)
        for (const { key, value } of records) {
          if (value === undefined) await this.delete(key)
          else await this.put(key, value)
        }
      }
    }
  }

  /** The durable pairs outside the peer records, then the records in memory (BaseDatastore applies the rest of `q`). */
  override async * _all (q: Query, options?: AbortOptions): AsyncGenerator<Pair> {
    if (!reachesPeers(q.prefix)) { yield * this.durable.query({ prefix: q.prefix }, options); return }
    if (!withinPeers(q.prefix)) {
      for await (const pair of this.durable.query({ prefix: q.prefix }, options)) if (!isPeerKey(pair.key)) yield pair
    }
    yield * this.memory.query({ prefix: q.prefix })
  }

  override async * _allKeys (q: KeyQuery, options?: AbortOptions): AsyncGenerator<Key> {
    for await (const { key } of this._all({ prefix: q.prefix }, options)) yield key
  }

  async flush (): Promise<void> {
    // one write at a time: a timer's write still running when the stop's comes
    this.flushing = this.flushing.then(async () => { await this.write() })
    await this.flushing
  }

  async close (): Promise<void> {
    clearInterval(this.timer)
    await this.flush()
  }

  private async write (): Promise<void> {
    if (this.dirty.size === 0) return
    const keys = [...this.dirty]
    this.dirty.clear()
    const batch = this.durable.batch()
    for (const k of keys) {
      const key = new Key(k)
      if (this.memory.has(key)) batch.put(key, await this.memory.get(key))
      else batch.delete(key)
    }
    try {
      await batch.commit()
    } catch (err) {
      for (const k of keys) this.dirty.add(k)
      throw err
    }
  }
}

/** Whether keys under `prefix` may be peer records. */
function reachesPeers (prefix: string | undefined): boolean {
  return prefix == null || PEERS_PREFIX.startsWith(prefix) || prefix.startsWith(PEERS_PREFIX)
}

/** Whether every key under `prefix` is a peer record. */
function withinPeers (prefix: string | undefined): boolean {
  return prefix != null && prefix.startsWith(PEERS_PREFIX)
}
