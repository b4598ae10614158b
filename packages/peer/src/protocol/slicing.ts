import { idHasher } from './ids.js'
import type { JobSpec } from './job-spec.js'

/** One MicroJob: block range `[start, end)` of MacroJob `macroIndex`, position `index` inside it. */
export interface MicroJobDescriptor {
  microId: string
  macroIndex: number
  index: number
  start: number
  end: number
}

/** One MacroJob: its id, its `size` MicroJobs and their ids in index order (hashed on first read). */
export interface MacroJobDescriptor {
  macroId: string
  index: number
  size: number
  readonly microIds: string[]
}

/** The deterministic slicing of a Job. `microJobs` is in global order (`macroIndex * microJobsPerMacro + index`). */
export interface Slicing {
  jobId: string
  macroJobs: MacroJobDescriptor[]
  microJobs: MicroJobDescriptor[]
}

/**
 * Slices a job. MicroJob `i` of MacroJob `m` has global index `g = m * microJobsPerMacro + i` and covers blocks
 * `[g * blocksPerMicro, min((g + 1) * blocksPerMicro, blockCount))`. `parseJobSpec` guarantees that this covers
 * every block exactly once with no empty MicroJob. Ids follow `computeMacroId` / `computeMicroId`.
 *
 * A MacroJob's MicroJob ids are hashed when one of them is first read: a peer runs the MicroJobs of a few
 * MacroJobs, and every peer of a new job slices it at the same moment (640 Keccak hashes took 20 ms of cold CPU in
 * each of 8 peer processes sharing 2 cores, on the path from the announcement to the first MicroJob).
 */
export function sliceJob (spec: Pick<JobSpec, 'seed' | 'blockCount' | 'slicing'>, jobId: string): Slicing {
  const { macroJobs: M, microJobsPerMacro: P, blocksPerMicro: B } = spec.slicing
  const macroHash = idHasher(spec.seed, jobId)
  const macroJobs: MacroJobDescriptor[] = new Array(M)
  const microJobs: MicroJobDescriptor[] = new Array(M * P)
  for (let m = 0; m < M; m++) {
    const macro = macroJob(spec.seed, macroHash(m), m, P)
    macroJobs[m] = macro
    for (let i = 0; i < P; i++) {
      const start = (m * P + i) * B
      microJobs[m * P + i] = {
        get microId (): string { return macro.microIds[i] },
        macroIndex: m,
        index: i,
        start,
        end: Math.min(start + B, spec.blockCount)
      }
    }
  }
  return { jobId: jobId.toLowerCase(), macroJobs, microJobs }
}

function macroJob (seed: bigint, macroId: string, index: number, size: number): MacroJobDescriptor {
  let ids: string[] | undefined
  return {
    macroId,
    index,
    size,
    get microIds (): string[] {
      if (ids == null) {
        const hash = idHasher(seed, macroId)
        ids = Array.from({ length: size }, (_, i) => hash(i))
      }
      return ids
    }
  }
}
