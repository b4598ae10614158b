// Types of poison-jobs.js.
import type { JobClient } from '@jobmesh/dapp-sdk'
import type { MandelbrotJobInit } from '../../examples/src/index.js'

/** The honest job (`submitMandelbrot(client, POISON_HONEST_JOB)`): 8 small MicroJobs, cheaper than the poison. */
export declare const POISON_HONEST_JOB: MandelbrotJobInit

/** Submits three jobs whose code is not WebAssembly, traps, or loops forever; each with the error it must end with. */
export declare function submitPoisonJobs (client: JobClient): Promise<Array<{ jobId: string, reason: string }>>
