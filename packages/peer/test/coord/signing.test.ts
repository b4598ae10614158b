import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { describe, expect, it } from 'vitest'
import { recordSigner, recordVerifier } from '../../src/coord/index.js'
import { signTrusted } from '../../src/coord/signing.js'
import { excludingVerifier } from '../../src/jobs/rounds.js'
import { createTrafficCounters, decodeSignedRecord, encodeSignedRecord, recordSigningMessage, verifySignedRecord } from '../../src/protocol/index.js'
import { signer } from './signer-fixture.js'

describe('recordVerifier (signer keys imported once)', () => {
  it('accepts exactly what verifySignedRecord accepts: the domain, the payload and the signer bind', async () => {
    const alice = await signer()
    const bob = await signer()
    const payload = new TextEncoder().encode('term 3')
    const good = alice.sign('jobmesh/micro/j/0.1', payload)
    const decoded = decodeSignedRecord(good)
    const cases: Array<{ bytes: Uint8Array, domain: string }> = [
      { bytes: good, domain: 'jobmesh/micro/j/0.1' },
      // another key of the same map: a record copied elsewhere does not verify
      { bytes: good, domain: 'jobmesh/micro/j/0.2' },
      // payload changed after signing
      { bytes: encodeSignedRecord({ ...decoded, payload: new TextEncoder().encode('term 4') }), domain: 'jobmesh/micro/j/0.1' },
      // claims bob as signer with alice's signature
      { bytes: encodeSignedRecord({ ...decoded, signer: bob.peerId }), domain: 'jobmesh/micro/j/0.1' },
      // a truncated signature
      { bytes: encodeSignedRecord({ ...decoded, signature: decoded.signature.slice(1) }), domain: 'jobmesh/micro/j/0.1' },
      // a domain the protocol refuses (empty)
      { bytes: good, domain: '' }
    ]
    const verifier = recordVerifier()
    const verdicts = cases.map(c => verifier.verify(c.bytes, c.domain) != null)
    expect(verdicts).toEqual([true, false, false, false, false, false])
    expect(verdicts).toEqual(cases.map(c => {
      try {
        return verifySignedRecord(decodeSignedRecord(c.bytes), c.domain)
      } catch {
        return false
      }
    }))
    expect(verifier.verify(good, 'jobmesh/micro/j/0.1')).toEqual({ signer: alice.peerId, payload })
  })

  it('refuses a signer that is not an Ed25519 PeerId, and garbage', async () => {
    const secp = await generateKeyPair('secp256k1')
    const secpId = peerIdFromPrivateKey(secp).toString()
    const payload = new Uint8Array([1, 2, 3])
    const signature = await secp.sign(new Uint8Array([9]))
    const verifier = recordVerifier()
    expect(verifier.verify(encodeSignedRecord({ payload, signer: secpId, signature }), 'jobmesh/x')).toBeUndefined()
    expect(verifier.verify(new Uint8Array([0xff, 1, 2]), 'jobmesh/x')).toBeUndefined()
  })

  it('checks each record bytes object once per domain (the cache), counting each check', async () => {
    const alice = await signer()
    const counters = createTrafficCounters()
    const verifier = recordVerifier(counters)
    const a = alice.sign('jobmesh/result/j/0.1', new Uint8Array([1]))
    const b = alice.sign('jobmesh/result/j/0.2', new Uint8Array([2]))
    for (let i = 0; i < 3; i++) {
      expect(verifier.verify(a, 'jobmesh/result/j/0.1')?.signer).toBe(alice.peerId)
      expect(verifier.verify(b, 'jobmesh/result/j/0.2')?.signer).toBe(alice.peerId)
    }
    expect(counters.recordVerifications).toBe(2)
  })

  it('trusts the records this peer signs itself without a check, and still excludes a slashed signer', async () => {
    const alice = await signer()
    const counters = createTrafficCounters()
    const verifier = recordVerifier(counters)
    const payload = new Uint8Array([7])
    const own = signTrusted({ signer: alice, verifier }, 'jobmesh/micro/j/0.1', payload)
    expect(verifier.verify(own, 'jobmesh/micro/j/0.1')).toEqual({ signer: alice.peerId, payload })
    expect(counters.recordVerifications).toBe(0)
    // trusted for the domain it was signed under only: another domain is checked, and fails
    expect(verifier.verify(own, 'jobmesh/micro/j/0.2')).toBeUndefined()
    expect(counters.recordVerifications).toBe(1)
    // a fresh verifier checks the same bytes and agrees with what was trusted
    expect(recordVerifier().verify(own, 'jobmesh/micro/j/0.1')).toEqual({ signer: alice.peerId, payload })
    const excluding = excludingVerifier(recordVerifier(), new Set([alice.peerId]))
    const excluded = signTrusted({ signer: alice, verifier: excluding }, 'jobmesh/micro/j/0.3', payload)
    expect(excluding.verify(excluded, 'jobmesh/micro/j/0.3')).toBeUndefined()
  })
})

describe('recordSigner (the key imported once)', () => {
  it('makes the signature libp2p makes with the same key', async () => {
    const key = await generateKeyPair('Ed25519')
    const peerId = peerIdFromPrivateKey(key).toString()
    const record = decodeSignedRecord(recordSigner(key, peerId).sign('jobmesh/x', new Uint8Array([1, 2])))
    expect(record.signer).toBe(peerId)
    expect(Uint8Array.from(record.signature)).toEqual(Uint8Array.from(await key.sign(recordSigningMessage('jobmesh/x', new Uint8Array([1, 2])))))
    expect(verifySignedRecord(record, 'jobmesh/x')).toBe(true)
  })
})
