import { createChainContext } from './context.js'
import { escrowReads } from './escrow-reads.js'
import { escrowWrites } from './escrow-writes.js'
import { eventWatch } from './event-watch.js'
import { registryActions } from './registry-actions.js'
import type { ChainClient, ChainClientComponents, ChainClientInit } from './client-types.js'

export type {
  CallOptions, ChainClient, ChainClientComponents, ChainClientInit, WaitOptions, WatchOptions
} from './client-types.js'
export type {
  CreateJobInput, EscrowJobState, JobStatusName, RegisterInput, RegisterResult, RevealInput, SampleLeaf, SeedCommitState, VerifierState
} from './contract-types.js'

/**
 * Creates a chain client over a deployment. The actions live by contract and role, each a factory over the
 * client's shared context (context.ts): registry-actions.ts, escrow-writes.ts, escrow-reads.ts, event-watch.ts.
 *
 * @example
 * ```ts
 * const chain = createChainClient({ rpcUrl, signer: new Wallet(key), deployment })
 * await chain.ensureRegistered({ peerId: node.peerId.toString(), privateKey: node.privateKey, gpuModel: 'RTX 4090', vramGb: 24, stake: 10n ** 16n })
 * for await (const e of chain.watchEvents({ names: ['VerifierAssigned'], topic2: await chain.address(), signal })) { ... }
 * ```
 */
export function createChainClient (components: ChainClientComponents, init: ChainClientInit = {}): ChainClient {
  const context = createChainContext(components, init)
  const events = eventWatch(context)
  return {
    provider: context.provider,
    contracts: context.contracts,
    deployment: components.deployment,
    address: context.address,
    signMessage: context.signMessage,
    blockNumber: context.blockNumber,
    waitForBlock: events.waitForBlock,
    ...registryActions(context),
    ...escrowWrites(context),
    ...escrowReads(context),
    findEvents: events.findEvents,
    watchEvents: events.watchEvents
  }
}
