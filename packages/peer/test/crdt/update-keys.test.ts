import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { writtenKeys } from '../../src/crdt/index.js'

/** What `write` adds to a copy of `base`, as the update a remote peer would send. */
function updateOf (base: Y.Doc, write: (doc: Y.Doc) => void): Uint8Array {
  const copy = new Y.Doc()
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(base))
  const before = Y.encodeStateVector(copy)
  write(copy)
  return Y.encodeStateAsUpdate(copy, before)
}

const plain = (keys: ReturnType<typeof writtenKeys>): Record<string, string[]> | undefined =>
  keys == null ? undefined : Object.fromEntries([...keys].map(([map, set]) => [map, [...set].sort()]))

describe('writtenKeys', () => {
  it('names the map and key of each new entry, across root maps', () => {
    const doc = new Y.Doc()
    const update = updateOf(doc, d => {
      d.getMap('jobs').set('0xaa', new Uint8Array([1]))
      d.getMap('jobs').set('0xbb', new Uint8Array([2]))
      d.getMap('peers').set('12D3', 'profile')
    })
    expect(plain(writtenKeys(update, doc))).toEqual({ jobs: ['0xaa', '0xbb'], peers: ['12D3'] })
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
    expect(writtenKeys(updateOf(empty, d => { d.getMap('jobs').set('nested', new Y.Map()) }), empty)).toEqual(new Map([['jobs', new Set(['nested'])]]))
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
})
