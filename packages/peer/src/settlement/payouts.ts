import { getAddress } from 'ethers'
import type { PayoutLeaf } from '../protocol/index.js'

/** Blocks processed by one payee (wallet); several PeerIds may share a wallet. */
export interface PayeeWork {
  payee: string
  blocks: number
}

/**
 * Splits the processor pool by blocks processed (docs/settlement.md): `amount = floor(pool * blocks / total)`,
 * the rounding remainder to the payee with the most blocks (ties: lowest address). Payees are merged by address
 * and sorted by address; the sum equals `pool` exactly. Payees with zero blocks are left out.
 */
export function computePayouts (work: readonly PayeeWork[], pool: bigint): PayoutLeaf[] {
  const merged = new Map<string, number>()
  for (const w of work) {
    if (w.blocks <= 0) continue
    const a = getAddress(w.payee)
    merged.set(a, (merged.get(a) ?? 0) + w.blocks)
  }
  const payees = [...merged].sort(([a], [b]) => a.toLowerCase() < b.toLowerCase() ? -1 : 1)
  const total = BigInt(payees.reduce((s, [, b]) => s + b, 0))
  if (total === 0n) return []
  const leaves = payees.map(([payee, blocks]) => ({ payee, amount: pool * BigInt(blocks) / total }))
  const rest = pool - leaves.reduce((s, l) => s + l.amount, 0n)
  if (rest > 0n) {
    let best = 0
    payees.forEach(([, b], i) => { if (b > payees[best][1]) best = i })
    leaves[best].amount += rest
  }
  return leaves.filter(l => l.amount > 0n)
}
