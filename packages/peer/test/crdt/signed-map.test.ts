import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { ownerIsKeySuffix, signedMap } from '../../src/crdt/index.js'
import { encodeSignedRecord, signRecord } from '../../src/protocol/index.js'

const payload = (s: string): Uint8Array => new TextEncoder().encode(s)

describe('signed map', () => {
  it('reads valid records and treats bad signatures, wrong keys and non-owners as absent', async () => {
    const alice = await generateKeyPair('Ed25519')
    const mallory = await generateKeyPair('Ed25519')
    const aliceId = peerIdFromPrivateKey(alice).toString()
    const doc = new Y.Doc()
    const results = signedMap(doc.getMap('results'), { domain: 'jobmesh/result/job1', owner: ownerIsKeySuffix('/', 8) })
    const key = `0.1/${aliceId.slice(-8)}`

    await results.set(key, payload('ok'), alice)
    expect(results.get(key)).toEqual(payload('ok'))
    expect(results.getEntry(key)?.signer).toBe(aliceId)
    expect([...results.entries()].map(([k]) => k)).toEqual([key])
    // cached by value identity: same object, same answer
    expect(results.get(key)).toBe(results.get(key))

    // a non-owner cannot write through the API...
    await expect(results.set(key, payload('x'), mallory)).rejects.toThrow()
    // ...and a record a non-owner writes directly reads as absent
    const forged = await signRecord(mallory, `jobmesh/result/job1/${key}`, payload('forged'))
    doc.getMap('results').set(key, encodeSignedRecord(forged))
    expect(results.get(key)).toBeUndefined()

    // a bad signature reads as absent
    const good = await signRecord(alice, `jobmesh/result/job1/${key}`, payload('tampered'))
    good.signature = new Uint8Array(good.signature)
    good.signature[0] ^= 1
    doc.getMap('results').set(key, encodeSignedRecord(good))
    expect(results.get(key)).toBeUndefined()

    // a valid record copied to another key reads as absent (the key is part of the signed domain)
    const other = `0.2/${aliceId.slice(-8)}`
    await results.set(other, payload('for 0.2'), alice)
    doc.getMap('results').set(`0.3/${aliceId.slice(-8)}`, doc.getMap<Uint8Array>('results').get(other)!)
    expect(results.get(`0.3/${aliceId.slice(-8)}`)).toBeUndefined()

    // garbage reads as absent
    doc.getMap('results').set(`0.4/${aliceId.slice(-8)}`, new Uint8Array([1, 2, 3]))
    expect(results.has(`0.4/${aliceId.slice(-8)}`)).toBe(false)
  })
})
