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

/** One MacroJob and the ids of its MicroJobs in index order. */
export interface MacroJobDescriptor {
  macroId: string
  index: number
  microIds: string[]
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
 */
export function sliceJob (spec: Pick<JobSpec, 'seed' | 'blockCount' | 'slicing'>, jobId: string): Slicing {
  const { macroJobs: M, microJobsPerMacro: P, blocksPerMicro: B } = spec.slicing
  const macroHash = idHasher(spec.seed, jobId)
  const macroJobs: MacroJobDescriptor[] = new Array(M)
  const microJobs: MicroJobDescriptor[] = new Array(M * P)
  for (let m = 0; m < M; m++) {
    const macroId = macroHash(m)
    const microHash = idHasher(spec.seed, macroId)
    const microIds: string[] = new Array(P)
    for (let i = 0; i < P; i++) {
      const g = m * P + i
      const microId = microHash(i)
      microIds[i] = microId
      const start = g * B
      microJobs[g] = { microId, macroIndex: m, index: i, start, end: Math.min(start + B, spec.blockCount) }
    }
    macroJobs[m] = { macroId, index: m, microIds }
  }
  return { jobId: jobId.toLowerCase(), macroJobs, microJobs }
}
