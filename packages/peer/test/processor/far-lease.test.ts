import { afterEach, describe, expect, it } from 'vitest'
import { LeaseRecord, jobsTopic, macroKey, macroScope, microKey, microScope, recordSigner } from '../../src/coord/index.js'
import { jobDocName, macroDocName } from '../../src/crdt/index.js'
import { attackerBeside } from './attacker-node.js'
import { startPeers, stopPeers, testExecutor, testJob, waitFor, waitForMesh } from '@jobmesh/testkit'
import type { TestPeer } from '@jobmesh/testkit'
import type { Stoppable } from './attacker-node.js'

let peers: TestPeer[] = []
const extra: Stoppable[] = []

afterEach(async () => {
  await stopPeers(peers)
  peers = []
  for (const e of extra.splice(0)) await e.stop().catch(() => {})
})

/**
 * An admitted (in production: registered) peer writes one validly signed MicroJob lease of its own whose expiresAt is
 * ten years ahead (and, in the second case, a MacroJob lease likewise). Any valid lease may replace another
 * (doc-guard.ts leaseReplace), and nothing bounds expiresAt: the owner's reconcile keeps the item locked by the
 * attacker for as long as the lease says, so the MacroJob never completes.
 */
describe('a lease that expires in ten years', () => {
  for (const which of ['none', 'micro', 'macro+micro'] as const) {
    it(`(${which}) does not hold a MicroJob for longer than a lease: the job completes`, async () => {
      peers = await startPeers(2, { executor: testExecutor({ workMs: 50 }), maxBatch: 4 })
      const { node: attacker, docs: attackerDocs } = await attackerBeside(peers, extra)
      await Promise.all(peers.map(async p => p.processor.start()))
      await waitForMesh(peers, jobsTopic())
      const job = testJob(1, 24)
      let completed = 0
      let done = 0
      for (const p of peers) p.processor.addEventListener('microjob:done', () => { done++ })
      for (const p of peers) p.processor.addEventListener('job:complete', () => { completed++ })
      const me = attacker.peerId.toString()
      const signer = recordSigner(attacker.privateKey, me)
      const far = BigInt(Date.now() + 10 * 365 * 24 * 3_600_000)
      // the attacker opens the docs first: its leases are there when the room opens
      const jobDoc = await attackerDocs.open(jobDocName(job.jobId))
      const macroDoc = await attackerDocs.open(macroDocName(jobDocName(job.jobId), 0))
      if (which !== 'none') macroDoc.getMap<Uint8Array>('micro').set(microKey(0, 23),
        signer.sign(`${microScope(job.jobId)}/${microKey(0, 23)}`, LeaseRecord.encode({ term: 1, expiresAt: far })))
      if (which === 'macro+micro') {
        jobDoc.getMap<Uint8Array>('macro').set(macroKey(0),
          signer.sign(`${macroScope(job.jobId)}/${macroKey(0)}`, LeaseRecord.encode({ term: 0xffff_ffff, expiresAt: far })))
      }
      await peers[0].processor.announceJob(job.spec, job.jobId, job.specCid)
      await waitFor(() => completed >= 2, { timeoutMs: 30_000, what: 'the job to complete on both peers' })
        .catch((err: Error) => { throw new Error(`${err.message}: ${done} MicroJobs done of 24`) })
      expect(completed).toBe(2)
    }, 60_000)
  }
})
