import { countsActive, labelId } from '@jobmesh/contracts'
import { readProfiles } from '../jobs/index.js'
import type { PeerOwners } from './peer-owners.js'
import type { JobsDocs } from '../jobs/index.js'
import type { ChainClient } from '@jobmesh/contracts'

export interface KnownNodesComponents {
  docs: JobsDocs
  chain: Pick<ChainClient, 'peerAddress'>
  /** The owners read before (`peerOwners`); without it every PeerId's owner is read. */
  owners?: PeerOwners
}

export interface EligibleNodesComponents extends KnownNodesComponents {
  chain: Pick<ChainClient, 'peerAddress' | 'nodeInfo' | 'nodeGrade'>
}

/**
 * The wallets of the nodes this peer knows of (lower case): each running peer publishes a profile; the registry, not
 * the profile, says which wallet registered its PeerId. Nodes without a profile are not seen.
 */
export async function knownNodeWallets (components: KnownNodesComponents,
  options: { signal?: AbortSignal } = {}): Promise<string[]> {
  const owners = new Set<string>()
  const ownerOf = components.owners?.of ?? (async (peerId: string) => await components.chain.peerAddress(peerId, options))
  for (const peerId of (await readProfiles(components, options)).keys()) {
    const owner = await ownerOf(peerId, options)
    if (owner != null) owners.add(owner.toLowerCase())
  }
  return [...owners]
}

/** What a job asks of the hardware of its processors and verifiers. */
export interface HardwareRequirements {
  minVramGb: number
  gpuModel?: string
}

/** Whether the registry draws verifiers of such a job among only some of its nodes (the smallest tier is 1 GB). */
export function narrowsDraw (req: HardwareRequirements): boolean {
  return req.minVramGb > 1 || req.gpuModel != null
}

/**
 * How many nodes the registry could draw as verifiers of a job with these requirements: active members whose grade
 * (`nodeGrade`: the VRAM tier the registry put them in, and their GPU model) fits, as the draw picks them, among the
 * nodes this peer knows of (each running peer publishes a profile; the registry, not the profile, says which wallet
 * registered it and how it is graded).
 */
export async function eligibleNodes (components: EligibleNodesComponents, req: HardwareRequirements,
  options: { signal?: AbortSignal } = {}): Promise<number> {
  const model = req.gpuModel == null ? undefined : labelId(req.gpuModel).toLowerCase()
  let count = 0
  for (const owner of await knownNodeWallets(components, options)) {
    const info = await components.chain.nodeInfo(owner, options)
    if (!countsActive(info)) continue
    const grade = await components.chain.nodeGrade(owner, options)
    if (grade.gradeGb >= req.minVramGb && (model == null || grade.gpuModel.toLowerCase() === model)) count++
  }
  return count
}
