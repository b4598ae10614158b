import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { publishProfile } from '../../src/jobs/index.js'
import { knownNodeWallets, peerOwners } from '../../src/settlement/index.js'
import { OWNER_RECHECK_MS } from '../../src/settlement/constants.js'
import type { SettlementDocs } from '../../src/settlement/index.js'

const WALLET = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

describe('peerOwners: the registry owner of a PeerId, kept between reads', () => {
  it('reads a profile\'s owner once per count cycle at most: owners for 10 min, PeerIds nobody registered less and less often', async () => {
    let now = 0
    const registered = new Set<string>()
    const reads: string[] = []
    const chain = { peerAddress: async (peerId: string) => { reads.push(peerId); return registered.has(peerId) ? WALLET : undefined } }
    const owners = peerOwners({ chain, clock: () => now })
    const doc = new Y.Doc()
    const docs: SettlementDocs = { open: async () => doc }
    // one real node and 20 profiles of PeerIds nobody registered (free to publish)
    const keys = await Promise.all(Array.from({ length: 21 }, async () => await generateKeyPair('Ed25519')))
    for (const key of keys) await publishProfile({ docs, privateKey: key }, { address: WALLET, gpuModel: 'cpu', vramGb: 8 })
    const node = peerIdFromPrivateKey(keys[0]).toString()
    registered.add(node)

    // a count every 10 s for 10 min, as a peer makes while a job that narrows the draw is around
    for (; now < 600_000; now += 10_000) expect(await knownNodeWallets({ docs, chain, owners }, {})).toEqual([WALLET])
    const spam = reads.filter(id => id !== node).length
    // without the cache: 21 reads per count, 1 260 in 10 min; with it, each spam PeerId at 0, 10, 30, 70, 150, 310 s
    expect(reads.filter(id => id === node)).toEqual([node])
    expect(spam).toBe(20 * 6)
    // an owner is read again after OWNER_RECHECK_MS; a PeerId registered late is found at its next re-check
    const late = peerIdFromPrivateKey(keys[1]).toString()
    registered.add(late)
    now = OWNER_RECHECK_MS + 630_000
    expect(await owners.of(late)).toBe(WALLET)
    expect(await owners.of(node)).toBe(WALLET)
    expect(reads.filter(id => id === node)).toEqual([node, node])
  })
})
