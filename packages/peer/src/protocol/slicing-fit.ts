import { MAX_MICROJOBS_PER_JOB } from './constants.js'
import type { SlicingSpec } from './job-spec.js'

const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

/**
 * The slicing's one rule about the data: `macroJobs * microJobsPerMacro` MicroJobs of `blocksPerMicro` blocks, only
 * the last one shorter, so their number must be `ceil(blockCount / blocksPerMicro)`. Returns what is wrong and what
 * would fit, in plain words; undefined when it fits or a value is not a positive safe integer (the schema says so).
 */
export function slicingMismatch (slicing: Partial<SlicingSpec>, blockCount: number, blockSize?: number): string | undefined {
  const { macroJobs: m, microJobsPerMacro: p, blocksPerMicro: b } = slicing
  if (![blockCount, m, p, b].every(v => Number.isSafeInteger(v) && (v as number) > 0)) return undefined
  const [macros, perMacro, blocks] = [m as number, p as number, b as number]
  const total = macros * perMacro
  if (!Number.isSafeInteger(total * blocks)) return 'too many MicroJobs'
  if (total > MAX_MICROJOBS_PER_JOB) return `${total} MicroJobs: a job has at most ${MAX_MICROJOBS_PER_JOB}`
  const needed = Math.ceil(blockCount / blocks)
  if (total === needed) return undefined
  const least = (total - 1) * blocks + 1
  const covers = least === total * blocks ? `${total * blocks}` : `${least} to ${total * blocks}`
  const split = needed % macros === 0 ? `${count(macros, 'MacroJob', 'MacroJobs')} x ${needed / macros}` : `MacroJobs x MicroJobs per MacroJob = ${needed}`
  const fits = [`${count(needed, 'MicroJob', 'MicroJobs')} of ${count(blocks, 'block', 'blocks')} (${split})`]
  const wider = Math.ceil(blockCount / total)
  if (Math.ceil(blockCount / wider) === total) fits.push(`${count(total, 'MicroJob', 'MicroJobs')} of ${count(wider, 'block', 'blocks')}`)
  const data = count(blockCount, 'block', 'blocks') + (blockSize === undefined ? '' : ` of ${count(blockSize, 'byte', 'bytes')}`)
  return `the slicing (${count(macros, 'MacroJob', 'MacroJobs')} x ${count(perMacro, 'MicroJob', 'MicroJobs')} x ${count(blocks, 'block', 'blocks')}) ` +
    `needs ${covers} blocks (only the last MicroJob may be shorter), but the data has ${data}; what fits: ${fits.join(', or ')}`
}
