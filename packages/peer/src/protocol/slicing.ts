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

/** One MacroJob: its id and its `size` MicroJobs. */
export interface MacroJobDescriptor {
  macroId: string
  index: number
  size: number
  /** The id of its MicroJob `index` (hashed on its first read, that one alone). */
  microId: (index: number) => string
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
 * Each MicroJob id is hashed when it is first read: a peer runs a few batches of a few MacroJobs, and every peer of a
 * new job slices it at the same moment (640 Keccak hashes took 20 ms of cold CPU in each of 8 peer processes sharing
 * 2 cores; the 80 ids of one MacroJob, hashed for its first MicroJob, were 6 % of the peers' CPU in the second after
 * they opened the job, on the path from the announcement to the first MicroJob).
 */
export function sliceJob (spec: Pick<JobSpec, 'seed' | 'blockCount' | 'slicing'>, jobId: string): Slicing {
  const { macroJobs: M, microJobsPerMacro: P, blocksPerMicro: B } = spec.slicing
  const macroHash = idHasher(spec.seed, jobId)
  const macroJobs: MacroJobDescriptor[] = new Array(M)
  const microJobs: MicroJobDescriptor[] = new Array(M * P)
  for (let m = 0; m < M; m++) {
    const macro = new LazyMacroJob(spec.seed, macroHash(m), m, P)
    macroJobs[m] = macro
    for (let i = 0; i < P; i++) {
      const start = (m * P + i) * B
      microJobs[m * P + i] = {
        get microId (): string { return macro.microId(i) },
        macroIndex: m,
        index: i,
        start,
        end: Math.min(start + B, spec.blockCount)
      }
    }
  }
  return { jobId: jobId.toLowerCase(), macroJobs, microJobs }
}

/** A MacroJob whose MicroJob ids are hashed one at a time, each on its first read. */
class LazyMacroJob implements MacroJobDescriptor {
  readonly #hash: (index: number) => string
  readonly #ids: Array<string | undefined>

  constructor (seed: bigint, readonly macroId: string, readonly index: number, readonly size: number) {
    this.#hash = idHasher(seed, macroId)
    this.#ids = new Array(size)
  }

  microId (i: number): string {
    const id = this.#ids[i] ?? this.#hash(i)
    this.#ids[i] = id
    return id
  }
}
