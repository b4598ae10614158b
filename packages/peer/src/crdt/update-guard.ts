import * as Y from 'yjs'

/** A key of a root Y.Map changed by a remote update. */
export interface KeyChange {
  /** Name of the root map. */
  map: string
  key: string
  action: 'add' | 'update' | 'delete'
  /** The value before the update (undefined for `add`). */
  oldValue: unknown
  /** The value after the update (undefined for `delete`). */
  newValue: unknown
  /**
   * Set on a forbidden change the update itself did not write: an item another update had left pending (it waited
   * for a clock this update brought) overwrote a record this update wrote. It is undone; its sender is not to blame.
   */
  blameless?: true
}

/**
 * Who may change what in one doc. The store asks it for every key a remote update changed, right after Yjs
 * integrated the update and before anything else reads the doc; a forbidden change is undone at once (the previous
 * value is written back as a local update, which every peer receives) and the update counts as rejected: a gossiped
 * one is not forwarded and lowers its sender's score. Yjs has no write permissions, so this is where records become
 * "only their owner can remove or replace them".
 */
export interface DocGuard {
  /** True when the change is allowed. Must not throw and must not write to the doc. */
  allows(change: KeyChange, doc: Y.Doc): boolean
}

/** The guard of a doc by name, or undefined (no guard: every change is allowed). */
export type DocGuards = (docName: string) => DocGuard | undefined

/** Transaction origin of the writes that undo forbidden changes (local: persisted and published). */
export const ORIGIN_HEAL = Symbol('jobmesh:crdt:heal')

interface MapItem {
  id: { client: number, clock: number }
  deleted: boolean
  left?: MapItem | null
  /** Undefined on a GC struct. */
  content?: { getContent(): unknown[] }
}
type RootType = Y.AbstractType<unknown> & { _map: Map<string, MapItem>, _item: unknown }

/** How far back a key's items written in one transaction are looked at ({@link writtenBefore}). */
const MAX_ITEMS_PER_KEY = 64

function currentValue (type: RootType, key: string): unknown {
  const item = type._map.get(key)
  if (item == null || item.deleted) return undefined
  return item.content?.getContent().at(-1)
}

/**
 * The values a transaction wrote under `key` and ended in the same transaction (newest first): a record an update
 * wrote that an item left pending by another update (placed after that record's clock) overwrote at once. Yjs shows
 * only the net change of the key, which misses them.
 */
function writtenBefore (type: RootType, key: string, tr: Y.Transaction): unknown[] {
  const values: unknown[] = []
  const isNew = (item: MapItem): boolean => item.id.clock >= (tr.beforeState.get(item.id.client) ?? 0)
  let item = type._map.get(key)?.left ?? null
  for (let n = 0; item != null && n < MAX_ITEMS_PER_KEY && isNew(item); n++, item = item.left) {
    const value = item.content?.getContent().at(-1)
    if (value !== undefined) values.push(value)
  }
  return values
}

/**
 * Whether the update's own structs hold the item now under `key` (else an item pending from another update placed
 * it). `structs` decodes the update, once, when first asked: only a forbidden change asks.
 */
function wroteCurrent (type: RootType, key: string, structs: () => Array<{ id: { client: number, clock: number }, length: number }>): boolean {
  const item = type._map.get(key)
  if (item == null) return true
  const { client, clock } = item.id
  return structs().some(s => s.id.client === client && s.id.clock <= clock && clock < s.id.clock + s.length)
}

/**
 * Applies a remote update and returns the changes of root-map keys that `guard` forbids; the caller undoes them
 * with {@link heal} (once its update listener is attached, so the undo is persisted and published). Root types
 * Yjs only knows as placeholders (no `getMap` yet) are checked too.
 */
export function applyGuarded (doc: Y.Doc, update: Uint8Array, origin: symbol, guard: DocGuard): KeyChange[] {
  // each changed key with its root map (whose item now under the key tells who wrote it) and the values written and
  // overwritten within the transaction
  const changes: Array<{ change: KeyChange, root: RootType, overwritten: unknown[] }> = []
  const onAfter = (tr: Y.Transaction): void => {
    if (tr.origin !== origin) return
    let names: Map<unknown, string> | undefined
    for (const [type, keys] of tr.changed) {
      const root = type as unknown as RootType
      if (root._item != null) continue
      names ??= new Map([...doc.share].map(([name, t]) => [t, name]))
      const map = names.get(type)
      if (map == null) continue
      // YMapEvent computes each key's previous value; it must run now, before the transaction's cleanup drops
      // the content of deleted items
      const event = new Y.YMapEvent(type as unknown as Y.Map<unknown>, tr, keys)
      for (const [key, { action, oldValue }] of event.changes.keys) {
        changes.push({ change: { map, key, action, oldValue, newValue: currentValue(root, key) }, root, overwritten: writtenBefore(root, key, tr) })
      }
    }
  }
  doc.on('afterTransaction', onAfter)
  try {
    Y.applyUpdate(doc, update, origin)
  } finally {
    doc.off('afterTransaction', onAfter)
  }
  let decoded: ReturnType<typeof Y.decodeUpdate>['structs'] | undefined
  const structs = (): NonNullable<typeof decoded> => (decoded ??= Y.decodeUpdate(update).structs)
  const forbidden: KeyChange[] = []
  for (const { change: c, root, overwritten } of changes) {
    // a record written in this transaction stands for the key's previous value too: junk right after it is forbidden
    const action: KeyChange['action'] = c.newValue === undefined ? 'delete' : 'update'
    const wrong = !guard.allows(c, doc)
      ? c
      : overwritten.map(v => ({ ...c, action, oldValue: v })).find(w => !guard.allows(w, doc))
    if (wrong === undefined) continue
    // junk now under the key that an item pending from another update placed (after a clock this update brought) is
    // undone, but this update's sender is not to blame; a deletion is always this update's own delete set
    forbidden.push(c.newValue !== undefined && !wroteCurrent(root, c.key, structs) ? { ...wrong, blameless: true } : wrong)
  }
  return forbidden
}

/** Writes the previous values of forbidden changes back (one local transaction). */
export function heal (doc: Y.Doc, changes: KeyChange[]): void {
  doc.transact(() => {
    for (const c of changes) {
      try {
        const map = doc.getMap<unknown>(c.map)
        if (c.oldValue === undefined) map.delete(c.key)
        else map.set(c.key, c.oldValue)
      } catch {
        // a root of another type under that name: nobody reads it as a map
      }
    }
  }, ORIGIN_HEAL)
}
