import * as Y from 'yjs'

/** What an update writes to root maps: map name -> key -> the values it writes there (deleted content left out). */
export type WrittenKeys = Map<string, Map<string, unknown[]>>

type Place = readonly [map: string, key: string] | undefined

/**
 * Items of one update by client, in clock order, leaving out those the doc already holds (Yjs skips them too).
 * Undefined when a client's items are not in increasing clock order (an update Yjs would read differently).
 */
function newItems (structs: ReadonlyArray<Y.Item | Y.GC | unknown>, doc: Y.Doc): Map<number, Y.Item[]> | undefined {
  const out = new Map<number, Y.Item[]>()
  const next = new Map<number, number>()
  for (const s of structs) {
    if (!(s instanceof Y.Item || s instanceof Y.GC)) continue
    const { client, clock } = s.id
    if (clock < (next.get(client) ?? 0)) return undefined
    next.set(client, clock + s.length)
    if (!(s instanceof Y.Item) || clock + s.length <= Y.getState(doc.store, client)) continue
    const list = out.get(client) ?? []
    list.push(s)
    out.set(client, list)
  }
  return out
}

/** The item of the update that holds `id` (binary search over its client's items). */
function inUpdate (items: Map<number, Y.Item[]>, id: Y.ID): Y.Item | undefined {
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

/** Where an item the doc holds sits, when it is an entry of a root map. */
function placeInDoc (doc: Y.Doc, id: Y.ID): Place {
  const item = Y.getItem(doc.store, id)
  if (!(item instanceof Y.Item) || item.parentSub == null) return undefined
  const parent = item.parent as Y.AbstractType<unknown> | null
  if (parent == null || parent._item != null) return undefined
  return [Y.findRootTypeKey(parent), item.parentSub]
}

/**
 * What a remote update writes to root maps, found without applying it: an item written with its parent names its map
 * and key; an overwrite names only its origin (the value it replaces), looked up in `doc` when the doc holds that
 * id (the doc's copy is the one Yjs uses), else in the update. Items the doc already holds are left out, as Yjs
 * leaves them out. Undefined when the update cannot be read so: an item that cannot be placed (its origin is in
 * neither, or it is not an entry of a root map: a nested type, an array, a text), an origin chain that loops, or a
 * client's items out of order. The delete set is not looked at (which deletions are allowed is the doc guard's rule).
 */
export function writtenKeys (update: Uint8Array, doc: Y.Doc): WrittenKeys | undefined {
  const items = newItems(Y.decodeUpdate(update).structs, doc)
  if (items == null) return undefined
  const placed = new Map<Y.Item, Place>()
  const place = (start: Y.Item): Place => {
    // an overwrite chain inside the update is walked back to an item that names its place, then remembered for all
    const chain = new Set<Y.Item>()
    let item: Y.Item | undefined = start
    let found: Place
    while (item != null && !chain.has(item)) {
      if (placed.has(item)) {
        found = placed.get(item)
        break
      }
      chain.add(item)
      const parent: unknown = item.parent // a decoded item names a root type by its key
      if (typeof parent === 'string') {
        found = item.parentSub == null ? undefined : [parent, item.parentSub]
        break
      }
      const origin: Y.ID | null = item.origin
      if (parent != null || origin == null) break
      const held: boolean = origin.clock < Y.getState(doc.store, origin.client)
      item = held ? undefined : inUpdate(items, origin)
      if (held) found = placeInDoc(doc, origin)
    }
    for (const c of chain) placed.set(c, found)
    return found
  }
  const out: WrittenKeys = new Map()
  for (const list of items.values()) {
    for (const item of list) {
      const where = place(item)
      if (where == null) return undefined
      const keys = out.get(where[0]) ?? new Map<string, unknown[]>()
      const values = keys.get(where[1]) ?? []
      if (!(item.content instanceof Y.ContentDeleted)) values.push(...item.content.getContent())
      keys.set(where[1], values)
      out.set(where[0], keys)
    }
  }
  return out
}

/** The number of client blocks a (v1) update starts with: its first unsigned varint. */
function clientBlocks (update: Uint8Array): number {
  let n = 0
  for (let i = 0, shift = 1; i < Math.min(update.length, 8); i++, shift *= 128) {
    n += (update[i] & 0x7f) * shift
    if (update[i] < 0x80) return n
  }
  throw new RangeError('not a Yjs update')
}

/**
 * Whether an update only appends: items right after what `doc` holds of each client, in one block per client, none
 * of them GC, skipped or deleted content. Yjs applies such an update in full at once: nothing of it waits as
 * pending, to be completed later by another update (which could then change a key this one did not name), and it
 * claims no range of another writer's clock without content. The delete set is not looked at (the doc guard judges
 * deletions).
 */
export function appendsOnly (update: Uint8Array, doc: Y.Doc): boolean {
  let blocks: number
  let structs: ReturnType<typeof Y.decodeUpdate>['structs']
  try {
    blocks = clientBlocks(update)
    structs = Y.decodeUpdate(update).structs
  } catch {
    return false
  }
  const next = new Map<number, number>()
  for (const s of structs) {
    if (!(s instanceof Y.Item) || s.content instanceof Y.ContentDeleted) return false
    const expected = next.get(s.id.client) ?? Y.getState(doc.store, s.id.client)
    if (s.id.clock !== expected) return false
    next.set(s.id.client, expected + s.length)
  }
  // Yjs keeps one block per client (the last): an update that lists a client twice is not read as it looks
  return blocks === next.size
}
