import { RPC } from '@libp2p/gossipsub/message'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import * as lp from 'it-length-prefixed'
import type { JobmeshNode } from '../../src/node/index.js'
import type { PrivateKey } from '@libp2p/interface'

const GOSSIPSUB_PROTOCOL = '/meshsub/1.2.0'

/** A message of `author` on `topic`, signed as gossipsub's StrictSign signs it: over "libp2p-pubsub:" + the message without signature and key. */
export async function strictSigned (author: PrivateKey, topic: string, data: Uint8Array, seqno: bigint): Promise<RPC.Message> {
  const msg: RPC.Message = {
    from: peerIdFromPrivateKey(author).toMultihash().bytes,
    seqno: new Uint8Array(new BigUint64Array([seqno]).buffer).reverse(),
    topic,
    data
  }
  const signed = Buffer.concat([Buffer.from('libp2p-pubsub:'), RPC.Message.encode(msg)])
  return { ...msg, signature: await author.sign(signed) }
}

/**
 * A relay's own gossipsub stream to `receiver`, written by hand: whatever messages the relay sends arrive as if it
 * forwarded them, in order, whoever signed them.
 */
export async function rawGossip (relay: JobmeshNode, receiver: JobmeshNode): Promise<(messages: RPC.Message[]) => void> {
  await relay.libp2p.dial(receiver.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
  const stream = await relay.libp2p.dialProtocol(receiver.peerId, GOSSIPSUB_PROTOCOL, { signal: AbortSignal.timeout(10_000) })
  return (messages) => { stream.send(lp.encode.single(RPC.encode({ subscriptions: [], messages }))) }
}
