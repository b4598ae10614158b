import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { unixfs } from '@helia/unixfs'
import { afterEach, describe, expect, it } from 'vitest'
import { parseEther } from 'ethers'
import { CLI_BIN } from '@jobmesh/peer'
import { submitMandelbrot } from '../../examples/src/index.js'
import { abiModule, i32, op } from '../../packages/peer/test/executor/wasm-builder.js'
import { startNetwork } from './helpers.js'
import type { Network } from './helpers.js'
import type { JobClient } from '@jobmesh/dapp-sdk'
import type { PeerStatus } from '@jobmesh/peer'

const run = promisify(execFile)

async function status (dataDir: string): Promise<PeerStatus> {
  const { stdout } = await run(process.execPath, [CLI_BIN, 'status', '--json', '--data-dir', dataDir], { timeout: 10_000 })
  return JSON.parse(stdout) as PeerStatus
}

/** Follows a job's progress to its end; resolves with the error name it ended with (or 'done'). */
async function outcome (client: JobClient, jobId: string): Promise<{ end: string, reasons?: string[], failed?: unknown }> {
  let failed: unknown
  try {
    for await (const p of client.progress(jobId, { timeoutMs: 120_000 })) failed = p.failed ?? failed
    return { end: 'done' }
  } catch (err) {
    return { end: (err as Error).name, reasons: (err as { reasons?: string[] }).reasons, failed }
  }
}

describe('poison jobs on a devnet of 4 jobmesh processes', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('jobs whose code is not WebAssembly, traps or loops end failed; the honest job is released; the peers stay healthy', async () => {
    net = await startNetwork({ peers: 4 })
    const { client, devnet } = net
    // not WebAssembly: the SDK refuses such local code, so it arrives as an ipfs:// URI (not fetched by submit)
    const text = await unixfs(client.node.helia).addBytes(new TextEncoder().encode('#!/bin/sh\necho this is not a job\n'))
    const poisons = {
      notWasm: { code: { uri: `ipfs://${text.toString()}` }, reason: 'InvalidWasmError' },
      trap: { code: abiModule([op.unreachable, ...i32(0)]), reason: 'WasmTrapError' },
      loop: { code: abiModule([op.loop, op.void, op.br, 0, op.end, ...i32(0)]), reason: 'ExecutionTimeoutError' }
    }
    const data = new Uint8Array(64).fill(7)
    const poisonJobs: Array<{ jobId: string, reason: string }> = []
    for (const p of Object.values(poisons)) {
      // worth more than the honest job: every peer goes for the poison first
      const job = await client.submit({
        code: p.code, data, blockSize: 16, slicing: { macroJobs: 1, microJobsPerMacro: 4, blocksPerMicro: 1 },
        price: parseEther('2'), verifiers: 2, estimate: { secondsPerMicroJob: 0.1 }
      })
      poisonJobs.push({ jobId: job.jobId, reason: p.reason })
    }
    const image = { width: 64, height: 32, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }
    const honest = await submitMandelbrot(client, { image, macroJobs: 2, microJobsPerMacro: 4, price: parseEther('0.5'), verifiers: 2 })

    const [honestEnd, ...poisonEnds] = await Promise.all([outcome(client, honest.jobId), ...poisonJobs.map(async j => outcome(client, j.jobId))])
    expect(honestEnd.end).toBe('done')
    for (const [i, end] of poisonEnds.entries()) {
      expect(end.end).toBe('JobFailedError')
      expect(end.reasons).toContain(poisonJobs[i].reason)
      expect(end.failed).toBeDefined()
    }
    const release = await client.waitForRelease(honest.jobId, { pollIntervalMs: 500, timeoutMs: 120_000 })
    expect(release.status).toBe('Released')
    const outputs = await client.results(honest.jobId, { fetchTimeoutMs: 20_000, timeoutMs: 60_000 })
    expect(outputs).toHaveLength(8)

    // every peer is alive, answers, shows the honest job complete and (once it looked at them) the poison jobs failed
    const deadline = Date.now() + 60_000
    let states: PeerStatus[] = []
    const settled = (): boolean => states.every(s => s.jobs.find(j => j.jobId === honest.jobId)?.state === 'complete' &&
      poisonJobs.every(j => s.jobs.find(x => x.jobId === j.jobId)?.state === 'failed'))
    for (;;) {
      // one `jobmesh status` process at a time: four node start-ups at once take more than its timeout on a loaded machine
      states = []
      for (const p of devnet.peers) states.push(await status(p.dataDir))
      if (settled() || Date.now() > deadline) break
      await new Promise(resolve => setTimeout(resolve, 500))
    }
    expect(states.map(s => s.jobs.map(j => j.state).sort().join(','))).toEqual(devnet.peers.map(() => 'complete,failed,failed,failed'))
  }, 240_000)
})
