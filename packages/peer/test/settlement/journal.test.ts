import { MemoryDatastore } from 'datastore-core'
import { describe, expect, it } from 'vitest'
import { datastoreJournal } from '../../src/settlement/journal.js'

describe('settlement journal', () => {
  it('keeps duties under their prefix until removed, and refuses malformed keys', async () => {
    const datastore = new MemoryDatastore()
    const journal = datastoreJournal(datastore)
    expect(await journal.get('cursor')).toBeUndefined()
    await journal.put('finalize/0xab', '{}')
    await journal.put('finalize/0xcd', '{}')
    await journal.put('salt/0xab@12', '0x01')
    await journal.put('cursor', '99')
    expect((await journal.list('finalize/')).map(e => e.key).sort()).toEqual(['finalize/0xab', 'finalize/0xcd'])
    expect(await journal.get('salt/0xab@12')).toBe('0x01')
    await journal.delete('finalize/0xab')
    expect((await journal.list('finalize/')).map(e => e.key)).toEqual(['finalize/0xcd'])
    // the same datastore, a new journal (a restart): everything is still there
    expect(await datastoreJournal(datastore).get('cursor')).toBe('99')
    await expect(journal.put('../x y', '1')).rejects.toThrow(/bad journal key/)
  })
})
