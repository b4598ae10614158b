import type { CreateJobInput } from '@jobmesh/contracts'
import type { JobSpec } from '@jobmesh/peer/protocol'

/** The `createJob` input of a spec: its slicing, requirements, verifiers, deadline and verification level (`samples`). */
export function createJobParams (spec: JobSpec, specCid: string, nonce: bigint, jobRoot: string, samples = 1): CreateJobInput {
  return {
    specCid,
    nonce,
    jobRoot,
    seed: spec.seed,
    macroJobs: spec.slicing.macroJobs,
    microJobsPerMacro: spec.slicing.microJobsPerMacro,
    minVramGb: Math.ceil(spec.requirements.minVramGb),
    ...(spec.requirements.gpuModel === undefined ? {} : { gpuModel: spec.requirements.gpuModel }),
    ...(spec.requirements.modelId === undefined ? {} : { modelId: spec.requirements.modelId }),
    identicalHardware: false,
    k: spec.verifiers,
    samples,
    deadline: Math.ceil(spec.deadline / 1000),
    secondsPerMicroJob: Math.max(1, Math.ceil(spec.estimate.secondsPerMicroJob))
  }
}
