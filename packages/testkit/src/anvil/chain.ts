import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { createChainClient, createProvider, deploy } from '@jobmesh/contracts'
import { Wallet } from 'ethers'
import { DEFAULT_CHAIN_POLL_MS } from '../constants.js'
import { workerAnvil } from './worker-anvil.js'
import type { Anvil, ChainClient, DeployInit, Deployment } from '@jobmesh/contracts'

/** A node's PeerId key (Ed25519). */
export type NodeKey = Awaited<ReturnType<typeof generateKeyPair>>

export interface TestChainInit {
  /** Funded accounts; account 0 deploys. */
  accounts: number
  /** Seconds between blocks; omitted = automine. */
  blockTime?: number
  /** Contract parameters of the deployment. */
  deploy?: DeployInit
  /** Poll interval of the chain clients, in ms (default 50). */
  pollMs?: number
}

/** A deployed chain for one test: its anvil, the deployment and a chain client per account. */
export interface TestChain {
  anvil: Anvil
  deployment: Deployment
  /** `clients[i]` signs with account i, on a provider of its own. */
  clients: ChainClient[]
  /** Another chain client of account i (a restarted node on the same wallet); `stop()` destroys it too. */
  client(i: number): ChainClient
  /** Destroys the clients' providers and stops (or gives back) the anvil. */
  stop(): Promise<void>
}

/** A fresh deployment on this worker's anvil ({@link workerAnvil}) with a chain client per account. */
export async function startChain (init: TestChainInit): Promise<TestChain> {
  const anvil = await workerAnvil({ accounts: init.accounts, ...(init.blockTime === undefined ? {} : { blockTime: init.blockTime }) })
  try {
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId, pollingInterval: init.pollMs ?? DEFAULT_CHAIN_POLL_MS })
    // destroyed with the chain, not at once: ethers may still have a receipt poll of the last deployment transaction
    // queued, and destroying the provider rejects it where nobody can catch it (an unhandled rejection)
    const deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider), init.deploy).catch((err: Error) => {
      provider.destroy()
      throw err
    })
    const made: ChainClient[] = []
    const client = (i: number): ChainClient => {
      const c = createChainClient({
        provider: createProvider(anvil.rpcUrl, { chainId: anvil.chainId }),
        signer: new Wallet(anvil.accounts[i].privateKey),
        deployment
      }, { pollMs: init.pollMs ?? DEFAULT_CHAIN_POLL_MS })
      made.push(c)
      return c
    }
    const clients = anvil.accounts.map((_, i) => client(i))
    const stop = async (): Promise<void> => {
      for (const c of made) c.provider.destroy()
      provider.destroy()
      await anvil.stop()
    }
    return { anvil, deployment, clients, client, stop }
  } catch (err) {
    await anvil.stop()
    throw err
  }
}

/**
 * Registers each client's account as a node with a fresh Ed25519 PeerId and `stake` (default profile: cpu, 1 GB).
 * Returns the PeerIds' keys, in the clients' order (a node that registers again must use its own).
 */
export async function registerNodes (clients: ChainClient[], stake: bigint, profile: { gpuModel: string, vramGb: number } = { gpuModel: 'cpu', vramGb: 1 }): Promise<NodeKey[]> {
  const keys: NodeKey[] = []
  for (const c of clients) {
    const privateKey = await generateKeyPair('Ed25519')
    await c.ensureRegistered({ peerId: peerIdFromPrivateKey(privateKey).toString(), privateKey, ...profile, stake })
    keys.push(privateKey)
  }
  return keys
}
