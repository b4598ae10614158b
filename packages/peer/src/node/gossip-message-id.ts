import { createHash } from 'node:crypto'
import type { RPC } from '@libp2p/gossipsub/message'

/** Marks an absent field apart from an empty one (no field is 4 GiB long). */
const ABSENT = 0xffff_ffff

/**
 * gossipsub's fast message id: sha256 over every field of a received message exactly as it arrived (from, seqno,
 * topic, data, signature, key; each length-prefixed, an absent field apart from an empty one).
 *
 * gossipsub checks a copy against this id before anything else. Without it, every copy of a message that reaches a
 * peer over another mesh link has its signature checked again before it is found to be a duplicate. A copy whose
 * bytes equal a copy already checked has the same signature over the same data, so skipping the check cannot let a
 * forged message through; a copy that differs in any byte has another id and is checked in full. The id goes into the
 * cache only once the first copy's signature held.
 */
export function fastMessageId (msg: RPC.Message): string {
  const hash = createHash('sha256')
  const prefix = Buffer.alloc(4)
  const field = (bytes: Uint8Array | undefined): void => {
    prefix.writeUInt32BE(bytes == null ? ABSENT : bytes.length)
    hash.update(prefix)
    if (bytes != null) hash.update(bytes)
  }
  field(msg.from)
  field(msg.seqno)
  field(Buffer.from(msg.topic, 'utf8'))
  field(msg.data)
  field(msg.signature)
  field(msg.key)
  return hash.digest('base64')
}
