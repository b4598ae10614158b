import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** A node's probe state (`NodeRegistry.probeOf`). */
export interface ProbeState {
  /** The open probe's challenge (zero hash when none is open). */
  challenge: string
  /** Block of the open probe's assignment; 0 when none is open. */
  assignedBlock: number
  /** Unix seconds of the node's last scored task (registration, a verification or a probe). */
  lastTask: number
}

/** `NodeRegistry.probeOf(address)` (default: the signer). @throws the chain errors */
export async function probeOf (client: Pick<ChainContext, 'contracts' | 'read' | 'address'>, address?: string, options?: CallOptions): Promise<ProbeState> {
  const a = address ?? await client.address()
  const [challenge, assignedBlock, lastTask] = await client.read(`NodeRegistry.probeOf(${a})`, () => client.contracts.nodeRegistry.probeOf(a), options)
  return { challenge, assignedBlock: Number(assignedBlock), lastTask: Number(lastTask) }
}
