import type { AnvilAccount } from '@jobmesh/contracts'

/** One anvil of the pool, as the global setup hands it to the test workers. */
export interface PooledAnvil {
  rpcUrl: string
  port: number
  chainId: number
  accounts: AnvilAccount[]
  pid: number
}

/** The anvils of every test worker slot and block time, and where their locks live. */
export interface AnvilPool {
  lockDir: string
  anvils: Record<string, PooledAnvil>
}

/** The key of the anvil of worker slot `slot` (VITEST_POOL_ID, from 1) mining at `blockTime`. */
export function poolKey (slot: number, blockTime: number | undefined): string {
  return `${slot}-${blockTime ?? 'auto'}`
}

declare module 'vitest' {
  export interface ProvidedContext {
    jobmeshAnvilPool: AnvilPool
  }
}
