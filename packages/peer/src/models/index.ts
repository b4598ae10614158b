/**
 * Models a peer holds (docs/architecture.md, Models): a job's `requirements.modelId` names large content its code
 * reads (weights, a data set). Holders are recorded on chain (`ModelRegistry`); job choice is holder-first; a peer
 * that had to fetch a model prompts one more node to download it, and a prompted peer prefetches it.
 */
export { createModelHoldings } from './holdings.js'
export { promptTargets } from './prompt-targets.js'
export type { HeldModel, ModelHoldings, ModelHoldingsComponents, ModelHoldingsInit } from './holdings.js'
export * from './constants.js'
export { TooManyModelsError } from './errors.js'
