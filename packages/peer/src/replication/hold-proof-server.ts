import { anySignal } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import * as lp from 'it-length-prefixed'
import {
  DEFAULT_HOLD_PROOF_TIMEOUT_MS, HOLD_PROOF_PROTOCOL, MAX_INBOUND_HOLD_PROOF_STREAMS,
  MAX_REPLICATION_MESSAGE_BYTES
} from './constants.js'
import { ReplicationProtocolError } from './errors.js'
import { decodeChallenge, encodeProofAnswer, holdProofDigest } from './hold-proof-wire.js'
import { MAX_BLOCK_BYTES, collect } from '../storage/index.js'
import type { HoldChallenge, HoldProofAnswer } from './hold-proof-wire.js'
import type { Blocks } from '@helia/interface'
import type { Stream } from '@libp2p/interface'
import type { Libp2p } from 'libp2p'

const log = logger('jobmesh:replication')

export interface HoldProofServerComponents {
  libp2p: Pick<Libp2p, 'handle' | 'unhandle'>
  /** Read with `offline`: a challenge is answered from this node's blocks alone. */
  blockstore: Pick<Blocks, 'get'>
}

/** The running handler of {@link HOLD_PROOF_PROTOCOL}. */
export interface HoldProofServer {
  stop(): Promise<void>
}

/**
 * For each challenged block, its digest with the nonce if this node holds it, else null. Nothing is fetched: a block
 * that is not here is not proven.
 */
async function answerChallenge (components: Pick<HoldProofServerComponents, 'blockstore'>, challenge: HoldChallenge,
  options: { signal: AbortSignal }): Promise<HoldProofAnswer> {
  const proofs: Array<string | null> = []
  for (const cid of challenge.cids) {
    try {
      const bytes = await collect(components.blockstore.get(cid, { offline: true, signal: options.signal }), MAX_BLOCK_BYTES, `block ${cid.toString()}`)
      proofs.push(holdProofDigest(challenge.nonce, bytes))
    } catch (err) {
      options.signal.throwIfAborted()
      log('hold proof: block %c not here: %e', cid, err)
      proofs.push(null)
    }
  }
  return { proofs }
}

/**
 * Serves {@link HOLD_PROOF_PROTOCOL}: a peer that asked this node to hold content (a DApp's client its inputs, a
 * finalizer its outputs) names blocks and a nonce, and this node answers with the digest of each block it holds
 * (docs/settlement.md, Availability).
 */
export async function startHoldProofServer (components: HoldProofServerComponents,
  init: { timeoutMs?: number } = {}): Promise<HoldProofServer> {
  const controller = new AbortController()
  const timeoutMs = init.timeoutMs ?? DEFAULT_HOLD_PROOF_TIMEOUT_MS

  const handle = async (stream: Stream, sender: string): Promise<void> => {
    const signal = anySignal([controller.signal], timeoutMs)
    const onAbort = (): void => { stream.abort(new ReplicationProtocolError('no challenge answered within the timeout')) }
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      const next = await lp.decode(stream, { maxDataLength: MAX_REPLICATION_MESSAGE_BYTES }).next()
      if (next.done === true) throw new ReplicationProtocolError('stream ended without a challenge')
      const answer = await answerChallenge(components, decodeChallenge(next.value.subarray()), { signal })
      if (!stream.send(lp.encode.single(encodeProofAnswer(answer)))) await stream.onDrain({ signal })
      await stream.close({ signal })
    } catch (err) {
      log('hold-proof challenge of %s failed: %e', sender, err)
      stream.abort(err as Error)
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  await components.libp2p.handle(HOLD_PROOF_PROTOCOL, async (stream, connection) => {
    await handle(stream, connection.remotePeer.toString())
  }, { maxInboundStreams: MAX_INBOUND_HOLD_PROOF_STREAMS })
  return {
    async stop () {
      controller.abort()
      await components.libp2p.unhandle(HOLD_PROOF_PROTOCOL)
    }
  }
}
