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

type RootType = Y.AbstractType<unknown> & { _map: Map<string, { deleted: boolean, content: { getContent(): unknown[] } }>, _item: unknown }

function currentValue (type: RootType, key: string): unknown {
  const item = type._map.get(key)
  if (item == null || item.deleted) return undefined
  return item.content.getContent().at(-1)
}

/**
 * Applies a remote update and returns the changes of root-map keys that `guard` forbids; the caller undoes them
 * with {@link heal} (once its update listener is attached, so the undo is persisted and published). Root types
 * Yjs only knows as placeholders (no `getMap` yet) are checked too.
 */
export function applyGuarded (doc: Y.Doc, update: Uint8Array, origin: symbol, guard: DocGuard): KeyChange[] {
  const changes: KeyChange[] = []
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
        changes.push({ map, key, action, oldValue, newValue: currentValue(root, key) })
      }
    }
  }
  doc.on('afterTransaction', onAfter)
  try {
    Y.applyUpdate(doc, update, origin)
  } finally {
    doc.off('afterTransaction', onAfter)
  }
  return changes.filter(c => !guard.allows(c, doc))
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
