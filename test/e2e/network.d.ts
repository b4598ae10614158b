// Types of network.js.
import type { JobClient } from '@jobmesh/dapp-sdk'
import type { Devnet, DevnetInit } from '@jobmesh/peer/devnet'

/** A devnet and a DApp client connected to it, stopped together. */
export interface Network {
  devnet: Devnet
  client: JobClient
  stop(): Promise<void>
}

/** Starts a devnet in a fresh temp dir (short verification windows) and a DApp client on it. */
export declare function startNetwork (init?: DevnetInit): Promise<Network>
