import * as lp from 'it-length-prefixed'
import { MAX_REPLICATION_MESSAGE_BYTES } from './constants.js'
import { ReplicationProtocolError } from './errors.js'
import type { PeerId } from '@libp2p/interface'
import type { Libp2p } from 'libp2p'

/**
 * One request and one answer with `peer` over `protocol` (length-prefixed, each at most
 * {@link MAX_REPLICATION_MESSAGE_BYTES}): the answer's bytes. The stream is aborted when `signal` aborts.
 *
 * @throws ReplicationProtocolError (no answer, or one too large), the dial's errors, AbortError
 */
export async function exchange (libp2p: Pick<Libp2p, 'dialProtocol'>, peer: PeerId, protocol: string, request: Uint8Array,
  options: { signal: AbortSignal }): Promise<Uint8Array> {
  const { signal } = options
  const stream = await libp2p.dialProtocol(peer, protocol, { signal })
  const onAbort = (): void => { stream.abort(signal.reason instanceof Error ? signal.reason : new Error('aborted')) }
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    if (!stream.send(lp.encode.single(request))) await stream.onDrain({ signal })
    const next = await lp.decode(stream, { maxDataLength: MAX_REPLICATION_MESSAGE_BYTES }).next()
    signal.throwIfAborted()
    if (next.done === true) throw new ReplicationProtocolError(`${peer.toString()} closed the stream without an answer`)
    await stream.close({ signal }).catch(() => {})
    return next.value.subarray()
  } catch (err) {
    stream.abort(err as Error)
    throw err
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}
