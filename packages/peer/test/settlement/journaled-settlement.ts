import { generateKeyPair } from '@libp2p/crypto/keys'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { afterEach, beforeEach } from 'vitest'
import * as Y from 'yjs'
import { createNode } from '../../src/node/index.js'
import { createSettlement } from '../../src/settlement/index.js'
import { createContentStore } from '../../src/storage/index.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { JobmeshNode } from '../../src/node/index.js'
import type { DutyJournal, Settlement, SettlementComponents, SettlementInit } from '../../src/settlement/index.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

/** A fresh chain per test whose wallets 1.. are registered nodes, and one settlement of a wallet over a journal. */
export interface JournaledSettlements {
  /** The chain's wallets: 0 creates jobs, the others are registered nodes. */
  readonly chains: ChainClient[]
  /**
   * Creates and starts the settlement of `chain` over `journal`, on an in-process node's store, with no job docs
   * (`components` may add what a test needs, e.g. `loadSpec`); it is stopped after the test.
   */
  start(chain: ChainClient, journal: DutyJournal, init: SettlementInit, components?: Partial<SettlementComponents>): Promise<Settlement>
  /** Stops the started settlement now, as a node's stop does. */
  stop(): Promise<void>
}

/**
 * Registers the hooks of {@link JournaledSettlements} for the calling `describe`: before each test a chain of
 * `accounts` wallets (1 block every 100 ms) with wallets 1.. registered at `stake`, and a node; after it, the
 * settlement, the node and the chain are stopped.
 */
export function journaledSettlements (accounts: number, stake: bigint): JournaledSettlements {
  let chain: TestChain | undefined
  let node: JobmeshNode | undefined
  let settlement: Settlement | undefined

  beforeEach(async () => {
    chain = await startChain({ accounts, blockTime: 0.1 })
    await registerNodes(chain.clients.slice(1), stake)
    node = await createNode()
  })

  afterEach(async () => {
    await settlement?.stop()
    settlement = undefined
    await node?.stop()
    await chain?.stop()
  })

  const started = (): { chain: TestChain, node: JobmeshNode } => {
    if (chain === undefined || node === undefined) throw new Error('journaledSettlements: used outside a test')
    return { chain, node }
  }

  return {
    get chains () { return started().chain.clients },
    async start (wallet, journal, init, components = {}) {
      const s = createSettlement({
        docs: { open: async () => new Y.Doc() },
        chain: wallet,
        store: createContentStore({ helia: started().node.helia }),
        privateKey: await generateKeyPair('Ed25519'),
        journal,
        ...components
      }, init)
      settlement = s
      await s.start()
      return s
    },
    async stop () {
      await settlement?.stop()
      settlement = undefined
    }
  }
}
