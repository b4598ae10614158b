import { randomBytes } from 'node:crypto'
import { anySignal } from '@jobmesh/contracts'
import { DEFAULT_HOLD_PROOF_TIMEOUT_MS, HOLD_PROOF_PROTOCOL, MAX_HOLD_PROOF_BLOCKS } from './constants.js'
import { HoldProofFailedError } from './errors.js'
import { exchange } from './exchange.js'
import { decodeProofAnswer, encodeChallenge, holdProofDigest } from './hold-proof-wire.js'
import { MAX_BLOCK_BYTES, collect } from '../storage/index.js'
import type { Blocks } from '@helia/interface'
import type { PeerId } from '@libp2p/interface'
import type { Libp2p } from 'libp2p'
import type { CID } from 'multiformats/cid'

/** The parts of a node that challenges a holder: it holds the blocks itself and can withhold them meanwhile. */
export interface HoldProofClientComponents {
  libp2p: Pick<Libp2p, 'dialProtocol'>
  /** This node's own copy of the challenged blocks (read with `offline`). */
  blockstore: Pick<Blocks, 'get'>
  /** Holds blocks back from every read, bitswap's serving included, until the returned function is called. */
  withhold(cids: readonly CID[]): () => void
}

/**
 * Makes `peer` prove that it holds the blocks `cids` (1 to {@link MAX_HOLD_PROOF_BLOCKS}, held by this node too): a
 * fresh nonce and the CIDs go out, and each answer must be the digest of nonce and block. While the peer answers this
 * node withholds those blocks from everybody (bitswap's serving waits), so a peer that said it holds content and does
 * not cannot fetch it from this node on demand; it could only fetch them from another holder, which then holds them.
 *
 * @throws HoldProofFailedError (a block missing or a digest wrong, or no answer in `timeoutMs`), ReplicationProtocolError,
 * the dial's errors, AbortError (the caller's signal)
 */
export async function proveHolding (components: HoldProofClientComponents, peer: PeerId, cids: readonly CID[],
  options: { signal?: AbortSignal, timeoutMs?: number } = {}): Promise<void> {
  if (cids.length === 0 || cids.length > MAX_HOLD_PROOF_BLOCKS) throw new RangeError(`a challenge names 1 to ${MAX_HOLD_PROOF_BLOCKS} blocks, not ${cids.length}`)
  const timeoutMs = options.timeoutMs ?? DEFAULT_HOLD_PROOF_TIMEOUT_MS
  const signal = anySignal([options.signal], timeoutMs)
  const nonce = `0x${randomBytes(32).toString('hex')}`
  const expected = await Promise.all(cids.map(async cid => holdProofDigest(nonce,
    await collect(components.blockstore.get(cid, { offline: true, signal }), MAX_BLOCK_BYTES, `block ${cid.toString()}`))))
  const release = components.withhold(cids)
  try {
    let bytes: Uint8Array
    try {
      bytes = await exchange(components.libp2p, peer, HOLD_PROOF_PROTOCOL, encodeChallenge({ nonce, cids: [...cids] }), { signal })
    } catch (err) {
      options.signal?.throwIfAborted()
      if (signal.aborted) throw new HoldProofFailedError(`${peer.toString()} did not answer a challenge over ${cids.length} blocks within ${timeoutMs} ms`, { cause: err })
      throw err
    }
    const wrong = decodeProofAnswer(bytes, cids.length).proofs.filter((p, i) => p !== expected[i]).length
    if (wrong > 0) {
      throw new HoldProofFailedError(`${peer.toString()} did not prove ${wrong} of ${cids.length} blocks it said it holds`)
    }
  } finally {
    release()
  }
}
