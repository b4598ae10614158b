// The hostile node of hostile.test.ts and bench/hostile.bench.js: a libp2p node of the same stack as the peers, not
// registered, that writes well-formed Yjs updates nobody may write and floods the job's topics with junk. Plain JS
// (types in attacker.d.ts) so that the bench can use it without a TypeScript loader.
import { multiaddr } from '@multiformats/multiaddr'
import { parseEther } from 'ethers'
import { MACRO_MAP, MICRO_MAP, RESULTS_MAP, encodeMessage, jobsTopic, macroTopic } from '@jobmesh/peer/coord'
import { createDocStore, docTopic, jobDocName, macroDocName } from '@jobmesh/peer/crdt'
import { createNode } from '@jobmesh/peer/node'
import { waitFor } from '@jobmesh/testkit'

/** The honest job the attacker goes for (`submitMandelbrot(client, HOSTILE_JOB)`): 16 MicroJobs, 3 verifiers. */
export const HOSTILE_JOB = {
  image: { width: 256, height: 128, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 20_000 },
  macroJobs: 2,
  microJobsPerMacro: 8,
  price: parseEther('1'),
  verifiers: 3
}

/** Starts the attacker and dials every peer of the devnet (TCP). */
export async function startAttacker (devnet) {
  const node = await createNode({ bootstrap: devnet.bootstrap })
  const attacker = { node, docs: createDocStore(node), sent: 0 }
  try {
    for (const p of devnet.peers) {
      const addr = p.addresses.map(x => x.includes('/p2p/') ? x : `${x}/p2p/${p.peerId}`).find(x => !x.includes('/ws'))
      if (addr != null) await node.libp2p.dial(multiaddr(addr), { signal: AbortSignal.timeout(10_000) })
    }
  } catch (err) {
    await stopAttacker(attacker)
    throw err
  }
  return attacker
}

export async function stopAttacker (attacker) {
  await attacker.docs.stop().catch(() => {})
  await attacker.node.stop().catch(() => {})
}

/**
 * (a) Overwrites every record it sees with junk and deletes the rest, over gossip and pushed over sync: the MacroJob
 * leases in the job doc, the MicroJob leases and results in each MacroJob's doc.
 */
export async function vandalize (attacker, jobId, rounds, peers, macroJobs = HOSTILE_JOB.macroJobs) {
  const name = jobDocName(jobId)
  const targets = [
    { name, maps: [MACRO_MAP] },
    ...Array.from({ length: macroJobs }, (_, m) => ({ name: macroDocName(name, m), maps: [MICRO_MAP, RESULTS_MAP] }))
  ]
  const docs = await Promise.all(targets.map(async t => await attacker.docs.open(t.name, { signal: AbortSignal.timeout(20_000) })))
  // its updates travel by gossip only to peers it knows subscribe to the doc's topic: under load that exchange can
  // outlast the job, and the peers would then only ever see its pushes over sync (refused, but not on gossip). Every
  // peer of the job holds its doc; a MacroJob's doc only the peers of its room
  const knows = () => peers.every(p => attacker.node.pubsub.getSubscribers(docTopic(name)).some(s => s.toString() === p))
  await waitFor(knows, { timeoutMs: 20_000, intervalMs: 50, what: `the attacker to see ${peers.length} subscribers of ${name}` })
  for (let r = 0; r < rounds; r++) {
    for (const [t, target] of targets.entries()) {
      const doc = docs[t]
      for (const mapName of target.maps) {
        const map = doc.getMap(mapName)
        doc.transact(() => {
          // a key of its own every round: an update to gossip even while it has not received the peers' records yet
          map.set(`attacker/${r}`, new Uint8Array([0x0a, 0x01, r & 0xff]))
          for (const key of [...map.keys()]) {
            if (key.startsWith('attacker/')) continue
            if ((r + key.length) % 2 === 0) map.set(key, new Uint8Array([0x0a, 0x01, r & 0xff]))
            else map.delete(key)
          }
        })
        attacker.sent++
      }
      await attacker.docs.flush(target.name)
      for (const p of peers) await attacker.docs.sync(target.name, p, { push: true, fresh: true, timeoutMs: 5_000 }).catch(() => {})
    }
    await new Promise(resolve => setTimeout(resolve, 250))
  }
}

/** (b) Floods the job's topics for `ms`: oversized messages, garbage, and replays of the peers' own updates. */
export async function flood (attacker, jobId, ms) {
  const docTopicName = docTopic(jobDocName(jobId))
  const topics = [docTopicName, jobsTopic(), macroTopic(jobId)]
  for (const t of topics) attacker.node.pubsub.subscribe(t)
  const replays = []
  const onMessage = (evt) => {
    if (evt.detail.topic === docTopicName && replays.length < 64) replays.push(evt.detail.data)
  }
  attacker.node.pubsub.addEventListener('message', onMessage)
  const oversized = new Uint8Array(300 * 1024).fill(0x01)
  const until = Date.now() + ms
  let i = 0
  while (Date.now() < until) {
    const t = topics[i % topics.length]
    const kind = i % 4
    const data = kind === 0
      ? oversized
      : kind === 1
        ? crypto.getRandomValues(new Uint8Array(64))
        : kind === 2 && replays.length > 0
          ? replays[i % replays.length]
          : t === docTopicName ? new Uint8Array([0x01, 0xff, 0xfe, 0x00]) : encodeMessage({ openJobs: { nonce: BigInt(i) } }, 1024)
    await attacker.node.pubsub.publish(t, data).catch(() => {})
    attacker.sent++
    i++
    if (i % 20 === 0) await new Promise(resolve => setTimeout(resolve, 10))
  }
  attacker.node.pubsub.removeEventListener('message', onMessage)
}

/** Both at once, while the job runs: records vandalized as they appear (20 rounds), the topics flooded for `floodMs`. */
export async function attack (attacker, devnet, jobId, floodMs = 15_000) {
  await Promise.all([vandalize(attacker, jobId, 20, devnet.peers.map(p => p.peerId)), flood(attacker, jobId, floodMs)])
}
