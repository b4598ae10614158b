import type { CallOptions } from '../../client/client-types.js'
import type { ChainContext } from '../../client/context.js'

/** What the registry draws a node as: its GPU model id (`labelId` of the name) and its VRAM tier's size. */
export interface NodeGrade {
  /** bytes32 hex: `labelId(gpuModel)`. */
  gpuModel: string
  /** The size in GB of the VRAM tier it was graded in (a job needing more is never given it to verify). */
  gradeGb: number
}

/** `NodeRegistry.nodeGrade` of `address`. @throws the chain errors */
export async function nodeGrade (client: Pick<ChainContext, 'contracts' | 'read'>, address: string, options?: CallOptions): Promise<NodeGrade> {
  const [gpuModel, gradeGb] = await client.read(`NodeRegistry.nodeGrade(${address})`, () => client.contracts.nodeRegistry.nodeGrade(address), options) as [string, bigint]
  return { gpuModel: String(gpuModel), gradeGb: Number(gradeGb) }
}
