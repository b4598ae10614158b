import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createMetrics, decodeMessage, encodeMessage, guardCoordTopic } from '../../src/coord/index.js'
import { DEFAULT_HELD_BACK_PER_RELAY, GOSSIP_UPDATE_VERSION, TopicValidatorResult, createDocStore, docTopic } from '../../src/crdt/index.js'
import { createNode } from '../../src/node/index.js'
import { waitFor } from '@jobmesh/testkit'
import type { DocStore } from '../../src/crdt/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import { rawGossip, strictSigned } from '../node/raw-gossip.js'
import type { PrivateKey } from '@libp2p/interface'
import type { RPC } from '@libp2p/gossipsub/message'
import type { TopicValidatorFn } from '@libp2p/gossipsub'

const TOPIC = 'jobmesh/test/relays'
/** A short seen cache, so that the replay comes after gossipsub forgot the original without a two-minute wait. */
const SEEN_TTL_MS = 400
const nodes: JobmeshNode[] = []
const stores: DocStore[] = []

afterEach(async () => {
  await Promise.all(stores.splice(0).map(async d => d.stop()))
  await Promise.all(nodes.splice(0).map(async n => n.stop()))
})

/** A coordination message of `author` as gossipsub's StrictSign signs it, with the seqno its publisher gave it. */
async function authored (author: PrivateKey, nonce: number, seqno: bigint): Promise<RPC.Message> {
  return await strictSigned(author, TOPIC, encodeMessage({ openJobs: { nonce: BigInt(nonce) } }), seqno)
}

describe('a coordination topic against hostile relays', () => {
  it('ignores a victim\'s recorded messages sent again after gossipsub forgot them, so they spend none of its rate', async () => {
    const receiver = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'], gossipsub: { seenTTL: SEEN_TTL_MS } })
    nodes.push(receiver)
    const relay = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'] })
    nodes.push(relay)
    const metrics = createMetrics()
    // the victim may send 9 messages at once, then 1 a second
    guardCoordTopic(receiver.pubsub, TOPIC, { maxMessageBytes: 1024, metrics, rate: { ratePerSecond: 1, burst: 9 } })
    receiver.pubsub.subscribe(TOPIC)
    const delivered: number[] = []
    receiver.pubsub.addEventListener('message', (evt) => {
      if (evt.detail.topic === TOPIC) delivered.push(Number(decodeMessage(evt.detail.data).openJobs?.nonce))
    })
    const send = await rawGossip(relay, receiver)

    // the victim's 8 messages reach the receiver through the relay, which keeps them
    const victim = await generateKeyPair('Ed25519')
    const start = BigInt(Date.now()) * 1_000_000n
    const recorded = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(async n => authored(victim, n, start + BigInt(n))))
    send(recorded)
    await waitFor(() => delivered.length === 8, { timeoutMs: 10_000, what: 'the victim\'s 8 messages' })

    // gossipsub forgets them after its seen TTL (its caches are private: read here to know when a replay would pass)
    const caches = receiver.pubsub as unknown as { seenCache: { size: number }, fastMsgIdCache?: { size: number } }
    await waitFor(() => caches.seenCache.size === 0 && (caches.fastMsgIdCache?.size ?? 0) === 0, {
      timeoutMs: 10_000, what: 'gossipsub\'s seen cache to forget the victim\'s messages'
    })
    send(recorded)
    // the victim's next message: with the replays counted, its rate (1 token left of 9) would drop it
    send([await authored(victim, 9, start + 9n)])
    await waitFor(() => delivered.includes(9), { timeoutMs: 10_000, what: 'the victim\'s new message' })

    expect(delivered).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(metrics.droppedReplayed).toBe(8)
    expect(metrics.rateLimited).toBe(0)
  })

  it('rejects a relay\'s messages of authors that may not publish past its budget, and its score falls below the graylist', async () => {
    const receiver = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'] })
    nodes.push(receiver)
    const relay = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'] })
    nodes.push(relay)
    const metrics = createMetrics()
    // only registered nodes may publish here; the relay's fresh keys are none of them
    guardCoordTopic(receiver.pubsub, TOPIC, { maxMessageBytes: 1024, metrics, author: async () => false })
    receiver.pubsub.subscribe(TOPIC)
    const send = await rawGossip(relay, receiver)

    // a message of a fresh key each: the budget's burst is ignored, the rest rejected
    const sprayed = DEFAULT_HELD_BACK_PER_RELAY.burst + 200
    const seqno = BigInt(Date.now()) * 1_000_000n
    for (let sent = 0; sent < sprayed; sent += 100) {
      send(await Promise.all(Array.from({ length: 100 }, async (_, i) => authored(await generateKeyPair('Ed25519'), sent + i, seqno))))
    }
    await waitFor(() => metrics.rejected > 0, { timeoutMs: 30_000, what: 'a rejection of the relay\'s spray' })
    expect(metrics.droppedUnadmitted).toBeGreaterThanOrEqual(DEFAULT_HELD_BACK_PER_RELAY.burst)
    // gossipsub's default graylist threshold is -80: below it every RPC of the relay is ignored unread (the score
    // is cached for a while, so it is waited for)
    await waitFor(() => receiver.pubsub.getScore(relay.peerId.toString()) < -80, {
      timeoutMs: 10_000, what: 'the relay\'s score to fall below the graylist threshold'
    })
  })

  /** A relay's spray of doc updates, one of a fresh key each, framed as the doc store gossips them, at a receiver whose store checks them with `admitUpdate`. */
  async function sprayDoc (admitUpdate: () => Promise<'later'>): Promise<{ docs: DocStore, receiver: JobmeshNode, relay: JobmeshNode, sprayed: number }> {
    const receiver = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'] })
    nodes.push(receiver)
    const relay = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'] })
    nodes.push(relay)
    const docs = createDocStore(receiver, { compactIntervalMs: 0, admitUpdate })
    stores.push(docs)
    const name = 'jobmesh/test-held-back'
    await docs.open(name)
    const send = await rawGossip(relay, receiver)
    const sprayed = DEFAULT_HELD_BACK_PER_RELAY.burst + 200
    const seqno = BigInt(Date.now()) * 1_000_000n
    for (let sent = 0; sent < sprayed; sent += 100) {
      send(await Promise.all(Array.from({ length: 100 }, async (_, i) => {
        const doc = new Y.Doc()
        doc.getMap('m').set(`k${sent + i}`, sent + i)
        const data = Uint8Array.from([GOSSIP_UPDATE_VERSION, ...Y.encodeStateAsUpdate(doc)])
        return await strictSigned(await generateKeyPair('Ed25519'), docTopic(name), data, seqno)
      })))
    }
    return { docs, receiver, relay, sprayed }
  }

  it('rejects a relay\'s doc updates held back (`later`) past its budget, and its score falls below the graylist', async () => {
    // as the index holds back an update of a node that is not registered once its budget of chain reads is spent
    const { docs, receiver, relay } = await sprayDoc(async () => 'later')
    await waitFor(() => docs.metrics.gossipRejected > 0, { timeoutMs: 30_000, what: 'a rejection of the relay\'s spray' })
    expect(docs.metrics.gossipUnauthorized).toBeGreaterThanOrEqual(DEFAULT_HELD_BACK_PER_RELAY.burst)
    expect(docs.metrics.updatesApplied).toBe(0)
    await waitFor(() => receiver.pubsub.getScore(relay.peerId.toString()) < -80, {
      timeoutMs: 10_000, what: 'the relay\'s score to fall below the graylist threshold'
    })
  })

  it('blames no relay for doc updates whose check failed (a chain read that failed): all ignored, none rejected', async () => {
    const { docs, sprayed } = await sprayDoc(async () => { throw new Error('the chain cannot be read') })
    await waitFor(() => docs.metrics.gossipUnauthorized === sprayed, { timeoutMs: 30_000, what: 'every update of the spray checked' })
    expect(docs.metrics.gossipRejected).toBe(0)
    expect(docs.metrics.updatesApplied).toBe(0)
  })
})

describe('the held-back budget of a coordination topic (its validator alone)', () => {
  /** The validator guardCoordTopic installs, fed a message of a fresh author on each call, all from one relay. */
  async function validator (author: () => Promise<boolean>): Promise<(n: number) => Promise<TopicValidatorResult>> {
    const topicValidators = new Map<string, TopicValidatorFn>()
    guardCoordTopic({ topicValidators }, TOPIC, { maxMessageBytes: 1024, metrics: createMetrics(), author })
    const validate = topicValidators.get(TOPIC)
    if (validate == null) throw new Error('the topic is guarded')
    const relay = peerIdFromPrivateKey(await generateKeyPair('Ed25519'))
    const data = encodeMessage({ openJobs: { nonce: 1n } })
    return async (n) => await validate(relay, { type: 'signed', from: { toString: () => `author-${n}` }, sequenceNumber: 1n, data, topic: TOPIC } as never)
  }

  /** The verdicts of a burst and a hundred more such messages, each once. */
  async function verdicts (validate: (n: number) => Promise<TopicValidatorResult>): Promise<TopicValidatorResult[]> {
    const seen = new Set<TopicValidatorResult>()
    for (let n = 0; n < DEFAULT_HELD_BACK_PER_RELAY.burst + 100; n++) seen.add(await validate(n))
    return [...seen].sort()
  }

  it('blames no relay while the registry cannot be read: each such message is ignored, none rejected', async () => {
    expect(await verdicts(await validator(async () => { throw new Error('the registry cannot be read') }))).toEqual([TopicValidatorResult.Ignore])
    // the same messages of authors found not registered: rejected past the budget
    expect(await verdicts(await validator(async () => false))).toEqual([TopicValidatorResult.Ignore, TopicValidatorResult.Reject].sort())
  })
})
