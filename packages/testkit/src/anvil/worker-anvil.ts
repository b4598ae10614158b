import { open, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { ANVIL_CHAIN_ID, startAnvil } from '@jobmesh/contracts'
import { inject } from 'vitest'
import { POOL_ANVIL_ACCOUNTS, POOL_BLOCK_TIMES } from '../constants.js'
import { AnvilRpcError } from '../errors.js'
import { anvilRpc } from './json-rpc.js'
import { poolKey } from './pool.js'
import type { PooledAnvil } from './pool.js'
import type { Anvil, AnvilExit, AnvilInit } from '@jobmesh/contracts'

/**
 * An anvil for one test: this test worker's pooled anvil of the asked block time when the project's global setup
 * started a pool (`packages/testkit/src/anvil/global-setup.ts`), else one of its own. A pooled anvil is lent at a
 * snapshot with its clock set to now; `stop()` reverts it to that snapshot (state, blocks, clock) and drops every
 * pending transaction, so the next test starts on the same fresh chain. Options the pool does not cover (another
 * chain id, more than 10 accounts, other balances, flags) and a second anvil at once get an anvil of their own.
 */
export async function workerAnvil (init: AnvilInit = {}): Promise<Anvil> {
  const pool = pooled(init)
  if (pool === undefined) return await startAnvil(init)
  const lock = join(pool.lockDir, `${pool.key}.lock`)
  if (!(await tryLock(lock))) return await startAnvil(init)
  try {
    await anvilRpc(pool.anvil.rpcUrl, 'evm_setTime', [Math.floor(Date.now() / 1000)])
    const snapshot = await anvilRpc(pool.anvil.rpcUrl, 'evm_snapshot', [])
    return lend(pool.anvil, init.accounts ?? POOL_ANVIL_ACCOUNTS, async () => restore(pool.anvil.rpcUrl, snapshot, lock))
  } catch (err) {
    await unlink(lock)
    throw err
  }
}

function pooled (init: AnvilInit): { anvil: PooledAnvil, key: string, lockDir: string } | undefined {
  const pool = inject('jobmeshAnvilPool')
  const slot = Number(process.env.VITEST_POOL_ID)
  const plain = init.args === undefined && init.balance === undefined && init.host === undefined && init.disableBlockGasLimit !== true
  const fits = (init.chainId ?? ANVIL_CHAIN_ID) === ANVIL_CHAIN_ID && (init.accounts ?? POOL_ANVIL_ACCOUNTS) <= POOL_ANVIL_ACCOUNTS
  if (pool == null || !Number.isInteger(slot) || !plain || !fits || !POOL_BLOCK_TIMES.includes(init.blockTime)) return undefined
  const key = poolKey(slot, init.blockTime)
  const anvil = pool.anvils[key]
  return anvil === undefined ? undefined : { anvil, key, lockDir: pool.lockDir }
}

async function tryLock (path: string): Promise<boolean> {
  try {
    await (await open(path, 'wx')).close()
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw err
  }
}

function lend (anvil: PooledAnvil, accounts: number, restoreChain: () => Promise<void>): Anvil {
  let stopping: Promise<void> | undefined
  let returned = (): void => {}
  // the pool's anvil outlives the loan (its crash is not seen here): for the borrower the chain has gone when it gave
  // it back
  const exited = new Promise<AnvilExit>(resolve => { returned = () => { resolve({ code: 0, signal: null }) } })
  return {
    rpcUrl: anvil.rpcUrl,
    port: anvil.port,
    chainId: anvil.chainId,
    accounts: anvil.accounts.slice(0, accounts),
    pid: anvil.pid,
    exited,
    stop: async () => { stopping ??= restoreChain().finally(returned); return stopping }
  }
}

/** Reverts the chain and frees the lock; a chain that cannot be reverted stays locked, so no later test gets it. */
async function restore (rpcUrl: string, snapshot: unknown, lock: string): Promise<void> {
  if (await anvilRpc(rpcUrl, 'evm_revert', [snapshot]) !== true) throw new AnvilRpcError('evm_revert', `snapshot ${String(snapshot)} is gone`)
  await anvilRpc(rpcUrl, 'anvil_dropAllTransactions', [])
  await unlink(lock)
}
