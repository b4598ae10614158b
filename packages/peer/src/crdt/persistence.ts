import { Key } from 'interface-datastore'
import * as Y from 'yjs'
import { DATASTORE_PREFIX } from './constants.js'
import type { Datastore } from 'interface-datastore'

const SEQ_DIGITS = 12

/**
 * The stored form of one doc: a snapshot (`Y.encodeStateAsUpdate`) plus the updates written since, each under its
 * own key so an update costs one small write:
 *
 * ```
 * /jobmesh/crdt/<encodeURIComponent(name)>/snapshot
 * /jobmesh/crdt/<encodeURIComponent(name)>/u/<seq, 12 digits>
 * ```
 *
 * Compaction writes a new snapshot and deletes the updates it covers in one batch.
 */
export class DocPersistence {
  private readonly datastore: Datastore
  private readonly prefix: string
  private seq = 0
  /** Updates stored since the last snapshot. */
  pending = 0

  constructor (datastore: Datastore, name: string) {
    this.datastore = datastore
    this.prefix = `${DATASTORE_PREFIX}/${encodeURIComponent(name)}`
  }

  private snapshotKey (): Key {
    return new Key(`${this.prefix}/snapshot`)
  }

  private updateKey (seq: number): Key {
    return new Key(`${this.prefix}/u/${String(seq).padStart(SEQ_DIGITS, '0')}`)
  }

  /** Reads the snapshot and all updates; returns them merged into one update (or undefined if nothing is stored). */
  async load (): Promise<Uint8Array | undefined> {
    const parts: Uint8Array[] = []
    try {
      parts.push(await this.datastore.get(this.snapshotKey()))
    } catch (err) {
      if ((err as Error).name !== 'NotFoundError') {
        throw err
      }
    }
    let maxSeq = -1
    for await (const { key, value } of this.datastore.query({ prefix: `${this.prefix}/u/` })) {
      parts.push(value)
      maxSeq = Math.max(maxSeq, Number(key.baseNamespace()))
      this.pending++
    }
    this.seq = maxSeq + 1
    if (parts.length === 0) {
      return undefined
    }
    return parts.length === 1 ? parts[0] : Y.mergeUpdates(parts)
  }

  /** Stores one update. */
  async append (update: Uint8Array): Promise<void> {
    const key = this.updateKey(this.seq++)
    await this.datastore.put(key, update)
    this.pending++
  }

  /** Replaces the snapshot and every stored update with `snapshot` (the doc's full state). */
  async compact (snapshot: Uint8Array): Promise<void> {
    const batch = this.datastore.batch()
    batch.put(this.snapshotKey(), snapshot)
    for await (const key of this.datastore.queryKeys({ prefix: `${this.prefix}/u/` })) {
      batch.delete(key)
    }
    await batch.commit()
    this.pending = 0
  }
}
