import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { decodeSignedRecord, encodeSignedRecord, recordSigningMessage, verifySignedRecord } from '../protocol/index.js'
import type { PrivateKey } from '@libp2p/interface'
import type * as Y from 'yjs'

/** A record that verified: its signer (PeerId string) and payload. */
export interface VerifiedEntry {
  signer: string
  payload: Uint8Array
}

/** Who may write a key. A record whose signer may not write its key reads as absent. */
export interface OwnerRule {
  (key: string, signer: string, payload: Uint8Array): boolean
}

/** Anyone with a valid signature may write any key (the default). */
export const anyOwner: OwnerRule = () => true

/** The key ends with `<separator><suffix>` where suffix is the signer's PeerId or its last `chars` characters. */
export function ownerIsKeySuffix (separator = '/', chars?: number): OwnerRule {
  return (key, signer) => {
    const i = key.lastIndexOf(separator)
    if (i < 0) return false
    const suffix = key.slice(i + separator.length)
    return chars == null ? suffix === signer : suffix.length === chars && signer.endsWith(suffix)
  }
}

/** The key is the signer's PeerId. */
export const ownerIsKey: OwnerRule = (key, signer) => key === signer

export interface SignedMapInit {
  /** Signing domain; each key signs under `<domain>/<key>`, so a record cannot be replayed under another key. */
  domain: string
  /** Default {@link anyOwner}. */
  owner?: OwnerRule
}

/**
 * A Y.Map of signed records (values are `encodeSignedRecord` bytes, the protocol's envelope). Readers see only
 * records with a valid signature by a signer the owner rule allows; everything else is absent.
 */
export interface SignedMap {
  readonly ymap: Y.Map<Uint8Array>
  /** The verified payload under `key`, or undefined. */
  get(key: string): Uint8Array | undefined
  /** The verified record (signer + payload) under `key`, or undefined. */
  getEntry(key: string): VerifiedEntry | undefined
  has(key: string): boolean
  /** Signs `payload` with `privateKey` and writes it (one Yjs transaction, origin = `origin`). */
  set(key: string, payload: Uint8Array, privateKey: PrivateKey, origin?: unknown): Promise<void>
  /** Like set, for keys that sign synchronously (Ed25519): usable inside a caller's transaction. */
  setSync(key: string, payload: Uint8Array, privateKey: PrivateKey): void
  /** Every verified entry. */
  entries(): IterableIterator<[string, VerifiedEntry]>
  /** Calls `fn` with the keys changed by each transaction (added, updated or deleted; read them to see which). */
  observe(fn: (keys: Set<string>) => void): () => void
}

function domainFor (domain: string, key: string): string {
  return `${domain}/${key}`
}

/** Wraps a Y.Map as a {@link SignedMap}; verification results are cached per value object (Yjs hands out the same one). */
export function signedMap (ymap: Y.Map<Uint8Array>, init: SignedMapInit): SignedMap {
  const owner = init.owner ?? anyOwner
  const cache = new WeakMap<Uint8Array, { key: string, entry: VerifiedEntry | null }>()

  function verify (key: string, value: unknown): VerifiedEntry | undefined {
    if (!(value instanceof Uint8Array)) return undefined
    const hit = cache.get(value)
    if (hit?.key === key) return hit.entry ?? undefined
    let entry: VerifiedEntry | null = null
    try {
      const record = decodeSignedRecord(value)
      if (verifySignedRecord(record, domainFor(init.domain, key)) && owner(key, record.signer, record.payload)) {
        entry = { signer: record.signer, payload: record.payload }
      }
    } catch {
      entry = null
    }
    cache.set(value, { key, entry })
    return entry ?? undefined
  }

  function encode (key: string, payload: Uint8Array, privateKey: PrivateKey, signature: Uint8Array): Uint8Array {
    const signer = peerIdFromPrivateKey(privateKey).toString()
    if (!owner(key, signer, payload)) {
      throw new TypeError(`${signer} may not write ${key}`)
    }
    // Yjs stores only plain Uint8Arrays (not Buffers) as binary content
    return new Uint8Array(encodeSignedRecord({ payload, signer, signature }))
  }

  return {
    ymap,
    get: key => verify(key, ymap.get(key))?.payload,
    getEntry: key => verify(key, ymap.get(key)),
    has: key => verify(key, ymap.get(key)) != null,
    async set (key, payload, privateKey, origin) {
      const signature = await privateKey.sign(recordSigningMessage(domainFor(init.domain, key), payload))
      const value = encode(key, payload, privateKey, signature)
      const doc = ymap.doc
      if (doc == null) {
        ymap.set(key, value)
      } else {
        doc.transact(() => { ymap.set(key, value) }, origin)
      }
    },
    setSync (key, payload, privateKey) {
      const signature = privateKey.sign(recordSigningMessage(domainFor(init.domain, key), payload))
      if (!(signature instanceof Uint8Array)) {
        throw new TypeError('setSync needs a key that signs synchronously (Ed25519)')
      }
      ymap.set(key, encode(key, payload, privateKey, signature))
    },
    * entries () {
      for (const [key, value] of ymap.entries()) {
        const entry = verify(key, value)
        if (entry != null) yield [key, entry]
      }
    },
    observe (fn) {
      const handler = (event: Y.YMapEvent<Uint8Array>): void => { fn(event.keysChanged) }
      ymap.observe(handler)
      return () => { ymap.unobserve(handler) }
    }
  }
}
