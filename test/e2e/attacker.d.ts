// Types of attacker.js.
import type { MandelbrotJobInit } from '../../examples/src/index.js'
import type { DocStore } from '@jobmesh/peer/crdt'
import type { Devnet } from '@jobmesh/peer/devnet'
import type { JobmeshNode } from '@jobmesh/peer/node'

/** A libp2p node of the same stack as the peers, not registered, that writes well-formed Yjs updates nobody may write. */
export interface Attacker {
  node: JobmeshNode
  docs: DocStore
  /** messages and updates it sent */
  sent: number
}

/** The honest job the attacker goes for (`submitMandelbrot(client, HOSTILE_JOB)`): 16 MicroJobs, 2 verifiers. */
export declare const HOSTILE_JOB: MandelbrotJobInit
export declare function startAttacker (devnet: Devnet): Promise<Attacker>
export declare function stopAttacker (attacker: Attacker): Promise<void>
export declare function vandalize (attacker: Attacker, jobId: string, rounds: number, peers: string[], macroJobs?: number): Promise<void>
export declare function flood (attacker: Attacker, jobId: string, ms: number): Promise<void>
export declare function attack (attacker: Attacker, devnet: Devnet, jobId: string, floodMs?: number): Promise<void>
