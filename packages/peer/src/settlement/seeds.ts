import { logger } from '@libp2p/logger'
import { AbiCoder, ZeroHash, keccak256 } from 'ethers'
import { UnknownSeedError } from './errors.js'
import type { SettlementOptions } from './types.js'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:settlement:seeds')

/** What the seeds need of the chain client. */
export type SeedChain = Pick<ChainClient, 'deployment' | 'signMessage' | 'seedCommit' | 'commitSeed' | 'revealSeed' | 'verifiers' | 'address'>

const bases = new WeakMap<object, Promise<string>>()

/**
 * The secret all of this node's seeds derive from: keccak256 of its wallet's signature of a text naming the escrow.
 * Signatures are deterministic (RFC 6979), so the same wallet finds the same seeds after a restart or on another
 * machine, and nobody without its key can compute them. The signature itself is never published.
 */
async function seedBase (chain: SeedChain): Promise<string> {
  let base = bases.get(chain)
  if (base == null) {
    const text = `jobmesh verifier seeds v1\nescrow ${chain.deployment.jobEscrow.toLowerCase()}\nchain ${chain.deployment.chainId ?? 'unknown'}`
    base = chain.signMessage(text).then(sig => keccak256(sig))
    bases.set(chain, base)
  }
  return base
}

/** Seed number `index` of this node. */
export async function seedAt (chain: SeedChain, index: number): Promise<string> {
  return keccak256(AbiCoder.defaultAbiCoder().encode(['bytes32', 'uint256'], [await seedBase(chain), index]))
}

/** The commitment `commitSeed` takes for a seed: keccak256(abi.encode(seed)). */
export function seedHash (seed: string): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(['bytes32'], [seed]))
}

/**
 * Makes sure the seed this node has committed on the escrow is one it can reveal; commits its next seed otherwise
 * (first start, or a commitment made with another derivation). Run before the node can be drawn: a verifier without
 * a revealable seed may not vote and is slashed the bond (docs/settlement.md, Re-rolled sample).
 */
export async function ensureSeedCommitted (chain: SeedChain, options: SettlementOptions = {}): Promise<void> {
  const c = await chain.seedCommit(undefined, { signal: options.signal })
  if (c.hash !== ZeroHash && seedHash(await seedAt(chain, c.index)) === c.hash) return
  const index = c.hash === ZeroHash ? 0 : c.index + 1
  await chain.commitSeed(seedHash(await seedAt(chain, index)), index, { signal: options.signal })
  log('committed verifier seed %d', index)
}

/**
 * Reveals this node's committed seed for a job it was drawn for (and commits the next one), unless it already did.
 * Resolves false when there was nothing to do (already revealed).
 *
 * @throws UnknownSeedError when the committed seed is not this wallet's
 */
export async function revealSeed (chain: SeedChain, jobId: string, options: SettlementOptions = {}): Promise<boolean> {
  const me = (await chain.address()).toLowerCase()
  const mine = (await chain.verifiers(jobId, { signal: options.signal })).find(v => v.node.toLowerCase() === me)
  if (mine == null || mine.seeded) return false
  const c = await chain.seedCommit(undefined, { signal: options.signal })
  const seed = await seedAt(chain, c.index)
  if (seedHash(seed) !== c.hash) throw new UnknownSeedError(`the seed committed by ${me} (index ${c.index}) is not one this wallet derives`)
  await chain.revealSeed(jobId, seed, seedHash(await seedAt(chain, c.index + 1)), { signal: options.signal })
  log('revealed verifier seed %d for %s', c.index, jobId)
  return true
}
