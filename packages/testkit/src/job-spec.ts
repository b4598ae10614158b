import { computeJobId, parseJobSpec } from '@jobmesh/peer/protocol'
import type { JobSpec } from '@jobmesh/peer/protocol'

/** A job for coordination tests: a spec no peer fetches content for (the executor is a stand-in). */
export interface TestJob {
  /** The spec as JSON, before parsing (what a bench sends to its peer processes). */
  input: Record<string, unknown>
  spec: JobSpec
  specCid: string
  jobId: string
}

/** A valid CID standing for the job's spec and code; nothing fetches it. */
export const TEST_SPEC_CID = 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'

/**
 * Builds a job of `macroJobs` x `microJobsPerMacro` MicroJobs of one 16-byte block each, with a random seed and job
 * id, so that tests running side by side never share a job. `requirements` replaces the default `{ minVramGb: 1 }`.
 */
export function testJob (macroJobs: number, microJobsPerMacro: number,
  requirements: { minVramGb: number, gpuModel?: string, modelId?: string } = { minVramGb: 1 }): TestJob {
  const input: Record<string, unknown> = {
    version: 1,
    creator: '0x00000000000000000000000000000000000000a1',
    codeUri: `ipfs://${TEST_SPEC_CID}`,
    dataUri: 'https://example.org/data.bin',
    blockSize: 16,
    blockCount: macroJobs * microJobsPerMacro,
    slicing: { macroJobs, microJobsPerMacro, blocksPerMicro: 1 },
    seed: String(Math.floor(Math.random() * 1e9)),
    requirements,
    price: '10000000000000000000',
    estimate: { secondsPerMicroJob: 1 },
    verifiers: 3,
    deadline: 1_900_000_000_000
  }
  const spec = parseJobSpec(input)
  const jobId = computeJobId(spec.creator, TEST_SPEC_CID, BigInt(Math.floor(Math.random() * 1e9)))
  return { input, spec, specCid: TEST_SPEC_CID, jobId }
}
