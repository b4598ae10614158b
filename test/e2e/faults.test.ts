import { afterEach, describe, expect, it } from 'vitest'
import { parseEther } from 'ethers'
import { submitMandelbrot } from '../../examples/src/index.js'
import { jobHistory, peerStatus, startNetwork } from './helpers.js'
import type { Network } from './helpers.js'
import { waitFor } from '@jobmesh/testkit'

describe('faults with real jobmesh processes', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('five peers, four bootstrapped from the first; one killed with SIGKILL mid-job; the others finish and the job is released', async () => {
    net = await startNetwork({ peers: 5 })
    const { client, devnet } = net
    // k = 3 and the quorum counts k: a round that drew the dead peer is decided by the two live verifiers, or, short
    // of a majority, restarted; the dead peer, silent for the whole task, is paused by the registry and a restarted
    // round draws the three live non-submitters.
    // heavy enough MicroJobs that the job is far from done when the victim has finished its first one; estimated at
    // 3 s each, so that a run slowed by a loaded machine stays within the peers' run bound (ten times the estimate)
    const image = { width: 256, height: 192, x0: -0.75, y0: 0.15, x1: -0.7, y1: 0.1, maxIter: 40_000 }
    const job = await submitMandelbrot(client, { image, macroJobs: 6, microJobsPerMacro: 8, price: parseEther('1'), verifiers: 3, secondsPerMicroJob: 3 })
    // the DApp's view of the job, from the start: MicroJobs with a result in the job's docs
    let seen = 0
    const finished = (async () => {
      for await (const p of client.progress(job.jobId, { timeoutMs: 200_000 })) seen = p.done
      return seen
    })()
    finished.catch(() => {})
    // the victim is the first of the bootstrapped peers to finish a MicroJob (a fixed one may get its first MicroJob
    // only near the job's end on a loaded machine, and then be its finalizer instead of a producer)
    const chosen = await waitFor(async () => {
      const states = await Promise.all(devnet.peers.map(async p => await peerStatus(p.dataDir)))
      const i = states.findIndex((s, n) => n > 0 && s.work.microJobsDone >= 1)
      return i < 0 ? undefined : { victim: devnet.peers[i], peerId: states[i].peerId, doneThen: states.reduce((a, s) => a + s.work.microJobsDone, 0) }
    }, { timeoutMs: 60_000, what: 'a bootstrapped peer to finish a MicroJob', intervalMs: 250 })
    const { victim, peerId: victimPeerId } = chosen
    // killed once what every peer had done by then, the victim's first results among them, reached the DApp: a peer
    // killed between its write and the doc update's publication takes those results with it (they are run again)
    await waitFor(() => seen >= Math.min(chosen.doneThen, 48) ? true : undefined,
      { timeoutMs: 30_000, what: `the ${chosen.doneThen} MicroJobs done so far in the DApp's view of the job`, intervalMs: 100 })
    victim.kill('SIGKILL')
    await victim.exited
    expect(victim.child.signalCode).toBe('SIGKILL')

    expect(await finished).toBe(48)
    // every survivor comes to see the job complete: the DApp reads the results from the MacroJob docs as they come, a
    // peer that worked in other rooms from the summaries, which may arrive a moment later (it once read 'open' there)
    const survivors = await waitFor(async () => {
      const states = await Promise.all(devnet.peers.filter(p => p !== victim).map(async p => await peerStatus(p.dataDir)))
      return states.every(s => s.jobs.find(j => j.jobId === job.jobId)?.state === 'complete') ? states : undefined
    }, { timeoutMs: 30_000, what: 'every surviving peer to see the job complete', intervalMs: 250 })
    expect(survivors.reduce((a, s) => a + s.work.microJobsDone, 0)).toBeGreaterThan(0)

    const release = await client.waitForRelease(job.jobId, { pollIntervalMs: 500, timeoutMs: 150_000 })
      .catch(async (err: Error) => { throw new Error(`${err.message}\n${await jobHistory(devnet, job.jobId)}\n${devnet.peers.map(p => `== ${p.name}\n${p.output.slice(-25).join('\n')}`).join('\n')}`, { cause: err }) })
    expect(release.status).toBe('Released')
    // every output, the dead peer's too, is served (the finalizer holds them all); each sha256 is checked by the SDK
    // against the manifest the escrow's resultRoot proves. Bounded: a missing output fails fast, it never hangs.
    const outputs = await client.results(job.jobId, { fetchTimeoutMs: 20_000, timeoutMs: 60_000 })
    expect(outputs).toHaveLength(48)
    expect(outputs.map(o => o.macroIndex * 8 + o.index)).toEqual(Array.from({ length: 48 }, (_, i) => i))
    for (const o of outputs) expect(o.bytes.byteLength).toBeGreaterThan(0)
    // the killed peer's results count: their outputs lived only in its blockstore until the finalizer recovered them
    expect(outputs.some(o => o.signer === victimPeerId)).toBe(true)
  }, 300_000)
})
