// The poison jobs of poison.test.ts and bench/hostile.bench.js, and the honest job submitted after them. Plain JS
// (types in poison-jobs.d.ts) so that the bench can use them without a TypeScript loader.
import { unixfs } from '@helia/unixfs'
import { parseEther } from 'ethers'
import { abiModule, i32, op } from '../../packages/peer/test/executor/wasm-builder.js'

/** The honest job (`submitMandelbrot(client, POISON_HONEST_JOB)`): 8 small MicroJobs, cheaper than the poison. */
export const POISON_HONEST_JOB = {
  image: { width: 64, height: 32, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 },
  macroJobs: 2,
  microJobsPerMacro: 4,
  price: parseEther('0.5'),
  verifiers: 3
}

/** Submits three jobs whose code is not WebAssembly, traps, or loops forever; each with the error it must end with. */
export async function submitPoisonJobs (client) {
  // not WebAssembly: the SDK refuses such local code, so it arrives as an ipfs:// URI (not fetched by submit)
  const text = await unixfs(client.node.helia).addBytes(new TextEncoder().encode('#!/bin/sh\necho this is not a job\n'))
  const poisons = {
    notWasm: { code: { uri: `ipfs://${text.toString()}` }, reason: 'InvalidWasmError' },
    trap: { code: abiModule([op.unreachable, ...i32(0)]), reason: 'WasmTrapError' },
    loop: { code: abiModule([op.loop, op.void, op.br, 0, op.end, ...i32(0)]), reason: 'ExecutionTimeoutError' }
  }
  const data = new Uint8Array(64).fill(7)
  const jobs = []
  for (const p of Object.values(poisons)) {
    // worth more than the honest job: every peer goes for the poison first
    const job = await client.submit({
      code: p.code, data, blockSize: 16, slicing: { macroJobs: 1, microJobsPerMacro: 4, blocksPerMicro: 1 },
      price: parseEther('2'), verifiers: 3, estimate: { secondsPerMicroJob: 0.1 }
    })
    jobs.push({ jobId: job.jobId, reason: p.reason })
  }
  return jobs
}
