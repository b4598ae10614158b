import * as encoding from 'lib0/encoding'
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { appendsOnly, writtenKeys } from '../../src/crdt/index.js'
import { updateOf } from './helpers.js'

const plain = (keys: ReturnType<typeof writtenKeys>): Record<string, string[]> | undefined =>
  keys == null ? undefined : Object.fromEntries([...keys].map(([map, entries]) => [map, [...entries.keys()].sort()]))

/** A map entry item as a peer could forge it: its id, and either its place (map, key) or an origin. */
function item (client: number, clock: number, at: { map: string, key: string } | { origin: [number, number] }, value: unknown = 'x'): Y.Item {
  const origin = 'origin' in at ? Y.createID(...at.origin) : null
  const made = new Y.Item(Y.createID(client, clock), null, origin, null, null, null, 'key' in at ? at.key : null, new Y.ContentAny([value]))
  if ('map' in at) made.parent = at.map as never // written as the root type's key
  return made
}

/** An update of hand-made items: one block per group, as given (a peer may send any bytes). */
function craft (...blocks: Y.Item[][]): Uint8Array {
  const encoder = new Y.UpdateEncoderV1()
  encoding.writeVarUint(encoder.restEncoder, blocks.length)
  for (const items of blocks) {
    encoding.writeVarUint(encoder.restEncoder, items.length)
    encoder.writeClient(items[0].id.client)
    encoding.writeVarUint(encoder.restEncoder, items[0].id.clock)
    for (const i of items) i.write(encoder, 0)
  }
  encoding.writeVarUint(encoder.restEncoder, 0) // an empty delete set
  return encoder.toUint8Array()
}

describe('writtenKeys', () => {
  it('names the map and key of each new entry, across root maps, with the values written', () => {
    const doc = new Y.Doc()
    const update = updateOf(doc, d => {
      d.getMap('jobs').set('0xaa', new Uint8Array([1]))
      d.getMap('jobs').set('0xbb', new Uint8Array([2]))
      d.getMap('peers').set('12D3', 'profile')
    })
    expect(plain(writtenKeys(update, doc))).toEqual({ jobs: ['0xaa', '0xbb'], peers: ['12D3'] })
    expect(writtenKeys(update, doc)?.get('jobs')?.get('0xbb')).toEqual([new Uint8Array([2])])
  })

  it('places an overwrite by the value it replaces: in the doc, or earlier in the same update', () => {
    const doc = new Y.Doc()
    doc.getMap('jobs').set('0xaa', 'first')
    // the overwrite of a key the doc holds names only its origin
    const overwrite = updateOf(doc, d => { d.getMap('jobs').set('0xaa', 'second') })
    const item = Y.decodeUpdate(overwrite).structs[0] as Y.Item
    expect(item.parentSub).toBeNull()
    expect(plain(writtenKeys(overwrite, doc))).toEqual({ jobs: ['0xaa'] })
    // a key written three times in one update, to a doc that never saw it
    const chain = updateOf(doc, d => { for (const v of ['a', 'b', 'c']) d.getMap('jobs').set('0xcc', v) })
    expect(plain(writtenKeys(chain, doc))).toEqual({ jobs: ['0xcc'] })
  })

  it('cannot place an overwrite of a value the doc does not hold, nor anything that is not a root-map entry', () => {
    const other = new Y.Doc()
    other.getMap('jobs').set('0xaa', 'first')
    const overwrite = updateOf(other, d => { d.getMap('jobs').set('0xaa', 'second') })
    expect(writtenKeys(overwrite, new Y.Doc())).toBeUndefined()
    expect(writtenKeys(overwrite, other)).toBeDefined()

    const empty = new Y.Doc()
    expect(writtenKeys(updateOf(empty, d => { d.getArray('list').push(['x']) }), empty)).toBeUndefined()
    expect(plain(writtenKeys(updateOf(empty, d => { d.getMap('jobs').set('nested', new Y.Map()) }), empty))).toEqual({ jobs: ['nested'] })
    const nested = new Y.Doc()
    const inner = new Y.Map<string>()
    nested.getMap('jobs').set('nested', inner)
    expect(writtenKeys(updateOf(nested, d => { (d.getMap('jobs').get('nested') as Y.Map<string>).set('k', 'v') }), nested)).toBeUndefined()
  })

  it('an update that deletes only names no key (deletions are the guard\'s to judge)', () => {
    const doc = new Y.Doc()
    doc.getMap('jobs').set('0xaa', 'first')
    const deletion = updateOf(doc, d => { d.getMap('jobs').delete('0xaa') })
    expect(plain(writtenKeys(deletion, doc))).toEqual({})
  })

  it('a crafted update: origins that loop cannot be placed (and the walk ends)', () => {
    const doc = new Y.Doc()
    expect(writtenKeys(craft([item(7, 0, { origin: [7, 0] })]), doc)).toBeUndefined()
    expect(writtenKeys(craft([item(7, 0, { origin: [7, 1] }), item(7, 1, { origin: [7, 0] })]), doc)).toBeUndefined()
    // the same items placed properly are read
    expect(plain(writtenKeys(craft([item(7, 0, { map: 'jobs', key: '0xaa' }), item(7, 1, { origin: [7, 0] })]), doc))).toEqual({ jobs: ['0xaa'] })
  })

  it('a crafted update: a forged copy of an item the doc holds is left out, and what builds on it is placed by the doc\'s copy', () => {
    const doc = new Y.Doc()
    doc.clientID = 5
    doc.getMap('jobs').set('0xaa', 'real')
    // (5, 0) is jobs/0xaa in the doc; the update claims it sits in map "junk" and overwrites it from client 9
    const update = craft([item(5, 0, { map: 'junk', key: 'x' })], [item(9, 0, { origin: [5, 0] }, 'over')])
    expect(plain(writtenKeys(update, doc))).toEqual({ jobs: ['0xaa'] })
  })

  it('a crafted update that lists a client twice cannot be read', () => {
    const update = craft([item(7, 0, { map: 'jobs', key: '0xaa' })], [item(7, 0, { map: 'jobs', key: '0xbb' })])
    expect(writtenKeys(update, new Y.Doc())).toBeUndefined()
  })

  it('appendsOnly: what a peer writes is; a gap, a GC struct, deleted content, or a client listed twice is not', () => {
    const doc = new Y.Doc()
    doc.clientID = 5
    doc.getMap('jobs').set('0xaa', 'real')
    expect(appendsOnly(updateOf(doc, d => { d.getMap('jobs').set('0xbb', 'new') }), doc)).toBe(true)
    // the same write, when the doc already holds it
    const written = updateOf(doc, d => { d.getMap('jobs').set('0xbb', 'new') })
    Y.applyUpdate(doc, written)
    expect(appendsOnly(written, doc)).toBe(false)
    // a gap: client 7 starts at clock 1, its clock 0 never sent (Yjs parks it as pending)
    expect(appendsOnly(craft([item(7, 1, { map: 'jobs', key: '0xcc' })]), doc)).toBe(false)
    // a GC struct claiming a range of another writer's clock
    const gc = new Y.UpdateEncoderV1()
    encoding.writeVarUint(gc.restEncoder, 1)
    encoding.writeVarUint(gc.restEncoder, 1)
    gc.writeClient(9)
    encoding.writeVarUint(gc.restEncoder, 0)
    new Y.GC(Y.createID(9, 0), 1000).write(gc, 0)
    encoding.writeVarUint(gc.restEncoder, 0)
    expect(appendsOnly(gc.toUint8Array(), doc)).toBe(false)
    // deleted content
    const deleted = new Y.Item(Y.createID(7, 0), null, null, null, null, null, 'k', new Y.ContentDeleted(1))
    deleted.parent = 'jobs' as never
    expect(appendsOnly(craft([deleted]), doc)).toBe(false)
    // a client in two blocks (Yjs keeps the last), clocks that look contiguous
    expect(appendsOnly(craft([item(7, 0, { map: 'peers', key: 'me' })], [item(7, 1, { origin: [7, 0] })]), doc)).toBe(false)
    expect(appendsOnly(craft([item(7, 0, { map: 'peers', key: 'me' }), item(7, 1, { origin: [7, 0] })]), doc)).toBe(true)
  })
})
