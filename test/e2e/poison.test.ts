import { parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { connect, createProvider, rpcCall } from '@jobmesh/contracts'
import { waitFor } from '@jobmesh/testkit'
import { submitMandelbrot } from '../../examples/src/index.js'
import { runCli } from './cli.js'
import { jobHistory, peerStatus, startNetwork } from './helpers.js'
import { POISON_HONEST_JOB, submitPoisonJobs } from './poison-jobs.js'
import type { Network } from './helpers.js'
import type { JobClient } from '@jobmesh/dapp-sdk'
import type { PeerStatus } from '@jobmesh/peer'

/** Follows a job's progress to its end; resolves with the error name it ended with (or 'done'). */
async function outcome (client: JobClient, jobId: string): Promise<{ end: string, reasons?: string[], details?: string[], failed?: unknown }> {
  let failed: unknown
  try {
    for await (const p of client.progress(jobId, { timeoutMs: 120_000 })) failed = p.failed ?? failed
    return { end: 'done' }
  } catch (err) {
    return { end: (err as Error).name, reasons: (err as { reasons?: string[] }).reasons, details: (err as { details?: string[] }).details, failed }
  }
}

describe('poison jobs on a devnet of 4 jobmesh processes', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('jobs whose code is not WebAssembly, traps or loops end failed and are refunded at their deadline; the honest job is released; the peers stay healthy', async () => {
    net = await startNetwork({ peers: 4 })
    const { client, devnet } = net
    const poisonJobs = await submitPoisonJobs(client)
    const honest = await submitMandelbrot(client, POISON_HONEST_JOB)

    const [honestEnd, ...poisonEnds] = await Promise.all([outcome(client, honest.jobId), ...poisonJobs.map(async j => outcome(client, j.jobId))])
    expect(honestEnd.end).toBe('done')
    for (const [i, end] of poisonEnds.entries()) {
      expect(end.end).toBe('JobFailedError')
      expect(end.reasons).toContain(poisonJobs[i].reason)
      // and why, in the failing peers' words (the error's message beside its name)
      expect(end.details?.some(d => d.startsWith(`${poisonJobs[i].reason}: `) && d.length > poisonJobs[i].reason.length + 2), JSON.stringify(end.details)).toBe(true)
      expect(end.failed).toBeDefined()
    }
    // the DApp's CLI: `wait` on a job the peers gave up exits 1 at once (not at its timeout) and says how to get the
    // fee back; nobody is paid for the failures
    const waited = await runCli(['wait', poisonJobs[0].jobId, '--timeout', '600', '--rpc', devnet.anvil.rpcUrl, '--deployment', devnet.deploymentFile,
      '--bootstrap', devnet.bootstrap[0]], { JOBMESH_PRIVATE_KEY: devnet.dapp.privateKey }, 90_000)
    expect(waited.code).toBe(1)
    expect(waited.stderr.join('\n')).toMatch(/^JobFailedError: job 0x[0-9a-f]{64} failed: .*take the fee back after its deadline \(.+\) with `jobmesh-dapp refund 0x[0-9a-f]{64}`$/m)
    expect(waited.stderr.join('\n')).toContain(`jobmesh-dapp refund ${poisonJobs[0].jobId}`)
    // its results: none will come, said as such (it said "no result yet")
    const noResults = await client.results(poisonJobs[1].jobId, { timeoutMs: 30_000 }).catch((e: unknown) => e as Error)
    expect(noResults.name).toBe('ResultNotFoundError')
    expect(noResults.message).toMatch(new RegExp(`has no result and none will come: the job failed \\(\\d+ failed MicroJob attempts on \\d+ peers: .*${poisonJobs[1].reason}.*\\) and the peers gave it up; its creator may refund it after its deadline .* \\(jobmesh-dapp refund ${poisonJobs[1].jobId}\\)$`))

    const release = await client.waitForRelease(honest.jobId, { pollIntervalMs: 500, timeoutMs: 120_000 })
    expect(release.status).toBe('Released')
    const outputs = await client.results(honest.jobId, { fetchTimeoutMs: 20_000, timeoutMs: 60_000 })
    expect(outputs).toHaveLength(8)

    // every peer is alive, answers, shows the honest job done and (once it looked at them) the poison jobs failed; a
    // peer still checking a poison job by a run of its own when the others finished the honest job shows that one
    // `settled` (released on chain, not worked on here), which is as healthy
    let states: PeerStatus[] = []
    const honestState = (s: PeerStatus): string | undefined => {
      const state = s.jobs.find(j => j.jobId === honest.jobId)?.state
      return state === 'settled' ? 'complete' : state
    }
    const settled = (): boolean => states.every(s => honestState(s) === 'complete' &&
      poisonJobs.every(j => s.jobs.find(x => x.jobId === j.jobId)?.state === 'failed'))
    await waitFor(async () => {
      // one `jobmesh status` process at a time: four node start-ups at once take more than its timeout on a loaded machine
      states = []
      for (const p of devnet.peers) states.push(await peerStatus(p.dataDir))
      return settled()
    }, { timeoutMs: 60_000, intervalMs: 500, what: 'every peer to show the honest job complete and the poison jobs failed' })
      .catch(() => {}) // the states of the last look are compared below, with a diff
    // a peer that did not: the story of each poison job it has not given up, from the chain and every peer's log
    const unsettled = poisonJobs.filter(j => states.some(s => s.jobs.find(x => x.jobId === j.jobId)?.state !== 'failed'))
    const stories = (await Promise.all(unsettled.map(async j => await jobHistory(devnet, j.jobId)))).join('\n')
    expect(states.map(s => s.jobs.map(j => j.jobId === honest.jobId ? honestState(s) : j.state).sort().join(',')), stories)
      .toEqual(devnet.peers.map(() => 'complete,failed,failed,failed'))

    // the fee comes back to the creator in full at the deadline (a day of chain time later), through the DApp's CLI
    const trapJob = poisonJobs[1].jobId
    const { deadline: refundFrom, fee } = await client.status(trapJob)
    expect(fee).toBe(parseEther('2'))
    const rpc = devnet.anvil.rpcUrl
    await rpcCall(rpc, 'evm_increaseTime', [Math.max(1, refundFrom - Math.floor(Date.now() / 1000) + 60)], { timeout: 10_000 })
    await rpcCall(rpc, 'evm_mine', [], { timeout: 10_000 })
    const refunded = await runCli(['refund', trapJob, '--rpc', rpc, '--deployment', devnet.deploymentFile, '--bootstrap', devnet.bootstrap[0]],
      { JOBMESH_PRIVATE_KEY: devnet.dapp.privateKey }, 90_000)
    expect(refunded.code).toBe(0)
    expect((await client.status(trapJob)).status).toBe('Refunded')
    // the whole fee, to the creator, as the escrow sent it (its balance is no measure: peers may claim their payouts
    // of the honest job from it at the same time)
    const provider = createProvider(rpc, { chainId: devnet.anvil.chainId })
    try {
      const { jobEscrow } = connect(devnet.deployment, provider)
      const events = await jobEscrow.queryFilter(jobEscrow.filters.JobRefunded(trapJob))
      expect(events.map(e => 'args' in e ? [String(e.args.creator).toLowerCase(), BigInt(e.args.amount)] : [])).toEqual([[devnet.dapp.address.toLowerCase(), fee]])
    } finally {
      provider.destroy()
    }
  }, 240_000)
})
