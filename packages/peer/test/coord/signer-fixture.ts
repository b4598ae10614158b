import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { recordSigner } from '../../src/coord/index.js'
import type { RecordSigner } from '../../src/coord/index.js'

/** A record signer with a fresh Ed25519 key, signing as that key's PeerId (the tests of signed records). */
export async function signer (): Promise<RecordSigner> {
  const key = await generateKeyPair('Ed25519')
  return recordSigner(key, peerIdFromPrivateKey(key).toString())
}
