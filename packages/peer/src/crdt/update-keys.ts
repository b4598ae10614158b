import * as Y from 'yjs'

/** The keys of root maps an update writes: map name -> keys. */
export type WrittenKeys = Map<string, Set<string>>

type Place = readonly [map: string, key: string] | undefined

/** Items of one update by client, in clock order (as `Y.decodeUpdate` lists them). */
type ItemsByClient = Map<number, Y.Item[]>

function byClient (structs: ReadonlyArray<Y.Item | Y.GC | unknown>): ItemsByClient {
  const out: ItemsByClient = new Map()
  for (const s of structs) {
    if (!(s instanceof Y.Item)) continue
    const list = out.get(s.id.client) ?? []
    list.push(s)
    out.set(s.id.client, list)
  }
  return out
}

/** The item of the update that holds `id` (binary search over its client's items). */
function inUpdate (items: ItemsByClient, id: Y.ID): Y.Item | undefined {
  const list = items.get(id.client)
  if (list == null) return undefined
  let lo = 0
  let hi = list.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const item = list[mid]
    if (id.clock < item.id.clock) hi = mid - 1
    else if (id.clock >= item.id.clock + item.length) lo = mid + 1
    else return item
  }
  return undefined
}

/** Where an item already in `doc` sits, when it is an entry of a root map. */
function placeInDoc (doc: Y.Doc, id: Y.ID): Place {
  if (Y.getState(doc.store, id.client) <= id.clock) return undefined
  const item = Y.getItem(doc.store, id)
  if (!(item instanceof Y.Item) || item.parentSub == null) return undefined
  const parent = item.parent as Y.AbstractType<unknown> | null
  if (parent == null || parent._item != null) return undefined
  return [Y.findRootTypeKey(parent), item.parentSub]
}

/**
 * The keys of root maps a remote update writes (sets, overwrites, deleted values it carries), found without applying
 * it: an item written with its parent names its map and key; an overwrite names only its origin (the value it
 * replaces), looked up in the update itself, then in `doc`. Undefined when an item cannot be placed so (its origin
 * is in neither, or it is not an entry of a root map: a nested type, an array, a text): the caller cannot tell what
 * such an update writes. The delete set is not looked at (which deletions are allowed is the doc guard's rule).
 */
export function writtenKeys (update: Uint8Array, doc: Y.Doc): WrittenKeys | undefined {
  const items = byClient(Y.decodeUpdate(update).structs)
  const placed = new Map<Y.Item, Place>()
  const place = (start: Y.Item): Place => {
    // an overwrite chain inside the update is walked back to an item that names its place, then remembered for all
    const chain: Y.Item[] = []
    let item: Y.Item | undefined = start
    let found: Place
    while (item != null) {
      if (placed.has(item)) {
        found = placed.get(item)
        break
      }
      chain.push(item)
      const parent: unknown = item.parent // a decoded item names a root type by its key
      if (typeof parent === 'string') {
        found = item.parentSub == null ? undefined : [parent, item.parentSub]
        break
      }
      if (item.parent != null || item.origin == null) break
      const origin: Y.ID = item.origin
      item = inUpdate(items, origin)
      if (item == null) found = placeInDoc(doc, origin)
    }
    for (const c of chain) placed.set(c, found)
    return found
  }
  const out: WrittenKeys = new Map()
  for (const list of items.values()) {
    for (const item of list) {
      const where = place(item)
      if (where == null) return undefined
      const keys = out.get(where[0]) ?? new Set<string>()
      keys.add(where[1])
      out.set(where[0], keys)
    }
  }
  return out
}
