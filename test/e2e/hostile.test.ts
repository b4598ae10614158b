import { afterEach, describe, expect, it } from 'vitest'
import { submitMandelbrot } from '../../examples/src/index.js'
import { HOSTILE_JOB, flood, startAttacker, stopAttacker, vandalize } from './attacker.js'
import { matchesReference, peerStatus, startNetwork, withHistory } from './helpers.js'
import type { Attacker } from './attacker.js'
import type { Network } from './helpers.js'
import type { PeerStatus } from '@jobmesh/peer'

const IMAGE = HOSTILE_JOB.image

describe('a hostile node on a devnet of 3 jobmesh processes', () => {
  let net: Network | undefined
  let attacker: Attacker | undefined

  afterEach(async () => {
    if (attacker != null) await stopAttacker(attacker)
    attacker = undefined
    await net?.stop()
    net = undefined
  })

  it('overwrites and deletes records, then floods the job\'s topics: the job is released with correct outputs, every peer stays up', async () => {
    net = await startNetwork({ peers: 4 })
    const { client, devnet } = net
    const a = await startAttacker(devnet)
    attacker = a

    const job = await submitMandelbrot(client, HOSTILE_JOB)
    // while the job runs: records are vandalized as they appear (20 rounds), then the topics are flooded for 15 s.
    // One after the other, not at once: a single rejected message takes the attacker below a peer's graylist
    // threshold for about 2 s (gossip-guard.ts), and a flood's junk on the coordination topics that reached a
    // peer first would hide the vandal's doc updates from its validator (its refusal counted nowhere)
    const attacking = (async () => {
      await vandalize(a, job.jobId, 20, devnet.peers.map(p => p.peerId))
      await flood(a, job.jobId, 15_000)
    })()

    // each wait is bounded well inside the test's 300 s (a run takes 35-40 s), and a stalled one says where the job stood
    const story = withHistory(devnet, job.jobId)
    let done = 0
    try {
      for await (const p of client.progress(job.jobId, { timeoutMs: 120_000 })) done = p.done
      if (done !== 16) throw new Error(`progress ended at ${done} of 16 MicroJobs`)
    } catch (err) {
      await story(err as Error)
    }
    await attacking
    const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 90_000 }).catch(story)
    expect(release.status).toBe('Released')
    const outputs = await client.results(job.jobId, { fetchTimeoutMs: 20_000, timeoutMs: 40_000 })
    expect(matchesReference(outputs, IMAGE)).toBe(true)

    // every peer answers, and refused the attacker's traffic: its job-doc updates as unauthorized, the junk as rejected
    const states: PeerStatus[] = []
    for (const p of devnet.peers) states.push(await peerStatus(p.dataDir))
    for (const s of states) {
      // complete, or already retired (settled: a peer closes a released job's docs once it has claimed its payouts)
      expect(['complete', 'settled']).toContain(s.jobs.find(j => j.jobId === job.jobId)?.state)
      expect(s.refused?.gossipRejected).toBeGreaterThan(0)
    }
    const total = (f: keyof NonNullable<PeerStatus['refused']>): number => states.reduce((n, s) => n + (s.refused?.[f] ?? 0), 0)
    expect(total('gossipUnauthorized')).toBeGreaterThan(0)
    expect(total('coordRejected')).toBeGreaterThan(0)
    expect(total('syncRefused')).toBeGreaterThan(0)
    expect(a.sent).toBeGreaterThan(100)
  }, 300_000)
})
