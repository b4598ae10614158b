import { MANDELBROT_BLOCK_SIZE, encodeMandelbrotData } from './mandelbrot-data.js'
import { mandelbrotPng } from './mandelbrot-png.js'
import { loadExampleWasm } from './paths.js'
import type { MandelbrotImage } from './mandelbrot-data.js'
import type { JobClient, MicroJobOutput, Requirements, SubmitInput, SubmitOptions, SubmittedJob, VerificationLevel } from '@jobmesh/dapp-sdk'

/** A Mandelbrot job: the image and how it is cut. Rows per MicroJob = rows / (macroJobs * microJobsPerMacro). */
export interface MandelbrotJobInit {
  image: MandelbrotImage
  macroJobs: number
  microJobsPerMacro: number
  /** Fee in wei. */
  price: bigint
  /** Verifiers k (default the SDK's). */
  verifiers?: number
  /** Verification level (default the SDK's: one MicroJob per MacroJob). */
  verification?: VerificationLevel
  /** Hardware and model the peers need (default the SDK's: any node); `modelId` names a model its holders run first. */
  requirements?: Requirements
  /** Seconds one MicroJob is expected to take (default 1); peers bound each run at ten times this, at most 30 s. */
  secondsPerMicroJob?: number
}

/**
 * What a Mandelbrot job submits, but its code: the image's bands as data, one MicroJob per band of
 * `height / (macroJobs * microJobsPerMacro)` rows. @throws RangeError when the rows do not split evenly
 */
export function mandelbrotJobInput (init: MandelbrotJobInit): Omit<SubmitInput, 'code'> {
  const microJobs = init.macroJobs * init.microJobsPerMacro
  if (init.image.height % microJobs !== 0) {
    throw new RangeError(`height ${init.image.height} is not a multiple of ${microJobs} MicroJobs`)
  }
  return {
    data: encodeMandelbrotData(init.image, 1),
    blockSize: MANDELBROT_BLOCK_SIZE,
    slicing: {
      macroJobs: init.macroJobs,
      microJobsPerMacro: init.microJobsPerMacro,
      blocksPerMicro: init.image.height / microJobs
    },
    price: init.price,
    verifiers: init.verifiers,
    verification: init.verification,
    ...(init.requirements == null ? {} : { requirements: init.requirements }),
    estimate: { secondsPerMicroJob: init.secondsPerMicroJob ?? 1 }
  }
}

/**
 * Submits a Mandelbrot job through the SDK: one 64-byte block per image row, one MicroJob per band of
 * `height / (macroJobs * microJobsPerMacro)` rows.
 */
export async function submitMandelbrot (client: JobClient, init: MandelbrotJobInit, options: SubmitOptions = {}): Promise<SubmittedJob> {
  return await client.submit({ code: await loadExampleWasm('mandelbrot'), ...mandelbrotJobInput(init) }, options)
}

/** Stitches the verified outputs (in MicroJob order) into a PNG. */
export function mandelbrotResultPng (outputs: MicroJobOutput[]): Uint8Array {
  return mandelbrotPng(outputs.map(o => o.bytes))
}
