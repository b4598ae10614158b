import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { multiaddr } from '@multiformats/multiaddr'
import { afterEach, describe, expect, it } from 'vitest'
import { parseEther } from 'ethers'
import { PNG } from 'pngjs'
import {
  CLI_BIN, MACRO_MAP, MICRO_MAP, RESULTS_MAP, createDocStore, createNode, docTopic, encodeMessage, jobDocName, jobsTopic,
  macroTopic
} from '@jobmesh/peer'
import {
  MANDELBROT_TILE_HEADER, encodeMandelbrotData, mandelbrotReference, mandelbrotResultPng, submitMandelbrot
} from '../../examples/src/index.js'
import { startNetwork } from './helpers.js'
import type { Network } from './helpers.js'
import type { DocStore, JobmeshNode, PeerStatus } from '@jobmesh/peer'
import type { MandelbrotImage } from '../../examples/src/index.js'

const run = promisify(execFile)

async function status (dataDir: string): Promise<PeerStatus> {
  const { stdout } = await run(process.execPath, [CLI_BIN, 'status', '--json', '--data-dir', dataDir], { timeout: 10_000 })
  return JSON.parse(stdout) as PeerStatus
}

const IMAGE: MandelbrotImage = { width: 256, height: 128, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 20_000 }

/** A libp2p node of the same stack as the peers, not registered, that writes well-formed Yjs updates nobody may write. */
interface Attacker {
  node: JobmeshNode
  docs: DocStore
  sent: number
}

/** (a) Overwrites every record it sees with junk and deletes the rest, over gossip and pushed over sync. */
async function vandalize (attacker: Attacker, jobId: string, rounds: number, peers: string[]): Promise<void> {
  const name = jobDocName(jobId)
  const doc = await attacker.docs.open(name, { signal: AbortSignal.timeout(20_000) })
  // its updates travel by gossip only to peers it knows subscribe to the doc's topic: under load that exchange can
  // outlast the job, and the peers would then only ever see its pushes over sync (refused, but not on gossip)
  const deadline = Date.now() + 20_000
  const knows = (): boolean => peers.every(p => attacker.node.pubsub.getSubscribers(docTopic(name)).some(s => s.toString() === p))
  while (!knows()) {
    if (Date.now() > deadline) throw new Error(`the attacker never saw ${peers.length} subscribers of ${name}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  for (let r = 0; r < rounds; r++) {
    for (const mapName of [MICRO_MAP, MACRO_MAP, RESULTS_MAP]) {
      const map = doc.getMap<Uint8Array>(mapName)
      doc.transact(() => {
        for (const key of [...map.keys()]) {
          if ((r + key.length) % 2 === 0) map.set(key, new Uint8Array([0x0a, 0x01, r & 0xff]))
          else map.delete(key)
        }
      })
      attacker.sent++
    }
    await attacker.docs.flush(name)
    for (const p of peers) await attacker.docs.sync(name, p, { push: true, fresh: true, timeoutMs: 5_000 }).catch(() => {})
    await new Promise(resolve => setTimeout(resolve, 250))
  }
}

/** (b) Floods the job's topics for `ms`: oversized messages, garbage, and replays of the peers' own updates. */
async function flood (attacker: Attacker, jobId: string, ms: number): Promise<void> {
  const docTopicName = docTopic(jobDocName(jobId))
  const topics = [docTopicName, jobsTopic(), macroTopic(jobId)]
  for (const t of topics) attacker.node.pubsub.subscribe(t)
  const replays: Uint8Array[] = []
  const onMessage = (evt: CustomEvent<{ topic: string, data: Uint8Array }>): void => {
    if (evt.detail.topic === docTopicName && replays.length < 64) replays.push(evt.detail.data)
  }
  attacker.node.pubsub.addEventListener('message', onMessage as never)
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
  attacker.node.pubsub.removeEventListener('message', onMessage as never)
}

describe('a hostile node on a devnet of 3 jobmesh processes', () => {
  let net: Network | undefined
  let attacker: Attacker | undefined

  afterEach(async () => {
    await attacker?.docs.stop()
    await attacker?.node.stop()
    attacker = undefined
    await net?.stop()
    net = undefined
  })

  it('overwrites and deletes records, then floods the job\'s topics: the job is released with correct outputs, every peer stays up', async () => {
    net = await startNetwork({ peers: 3 })
    const { client, devnet } = net
    const node = await createNode({ bootstrap: devnet.bootstrap })
    const a: Attacker = { node, docs: createDocStore(node), sent: 0 }
    attacker = a
    for (const p of devnet.peers) {
      const addr = p.addresses.map(x => x.includes('/p2p/') ? x : `${x}/p2p/${p.peerId}`).find(x => !x.includes('/ws'))
      if (addr != null) await node.libp2p.dial(multiaddr(addr), { signal: AbortSignal.timeout(10_000) })
    }

    const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 2, microJobsPerMacro: 8, price: parseEther('1'), verifiers: 2 })
    // both at once, while the job runs: records are vandalized as they appear, and the topics flooded for 15 s
    const attack = Promise.all([vandalize(a, job.jobId, 20, devnet.peers.map(p => p.peerId)), flood(a, job.jobId, 15_000)])

    let done = 0
    for await (const p of client.progress(job.jobId, { timeoutMs: 180_000 })) done = p.done
    expect(done).toBe(16)
    await attack
    const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 120_000 })
    expect(release.status).toBe('Released')
    const outputs = await client.results(job.jobId, { fetchTimeoutMs: 20_000, timeoutMs: 60_000 })
    const png = PNG.sync.read(Buffer.from(mandelbrotResultPng(outputs)))
    const reference = mandelbrotReference(encodeMandelbrotData(IMAGE, 1)).subarray(MANDELBROT_TILE_HEADER)
    const gray = new Uint8Array(IMAGE.width * IMAGE.height)
    for (let i = 0; i < gray.length; i++) gray[i] = png.data[i * 4]
    expect(Buffer.from(gray).equals(Buffer.from(reference))).toBe(true)

    // every peer answers, and refused the attacker's traffic: its job-doc updates as unauthorized, the junk as rejected
    const states: PeerStatus[] = []
    for (const p of devnet.peers) states.push(await status(p.dataDir))
    for (const s of states) {
      expect(s.jobs.find(j => j.jobId === job.jobId)?.state).toBe('complete')
      expect(s.refused?.gossipRejected).toBeGreaterThan(0)
    }
    const total = (f: keyof NonNullable<PeerStatus['refused']>): number => states.reduce((n, s) => n + (s.refused?.[f] ?? 0), 0)
    expect(total('gossipUnauthorized')).toBeGreaterThan(0)
    expect(total('coordRejected')).toBeGreaterThan(0)
    expect(total('syncRefused')).toBeGreaterThan(0)
    expect(a.sent).toBeGreaterThan(100)
  }, 300_000)
})
