import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startAnvil } from '@jobmesh/contracts'
import { POOL_ANVIL_ACCOUNTS, POOL_BLOCK_TIMES } from '../constants.js'
import { poolKey } from './pool.js'
import type { PooledAnvil } from './pool.js'
import type { Anvil } from '@jobmesh/contracts'
import type { TestProject } from 'vitest/node'

/**
 * Vitest global setup of a project: one anvil per test worker slot and pooled block time, started once for the run
 * and stopped at its end; {@link workerAnvil} lends a test its worker's anvil and puts the chain back afterwards.
 */
export default async function setup (project: TestProject): Promise<() => Promise<void>> {
  const slots = Math.max(1, Number(project.config.maxWorkers ?? 1))
  const lockDir = await mkdtemp(join(tmpdir(), 'jobmesh-anvil-pool-'))
  const wanted = Array.from({ length: slots }, (_, i) => POOL_BLOCK_TIMES.map(blockTime => ({ slot: i + 1, blockTime }))).flat()
  const started = await Promise.allSettled(wanted.map(async w => startAnvil({ accounts: POOL_ANVIL_ACCOUNTS, blockTime: w.blockTime })))
  const running = started.flatMap(s => s.status === 'fulfilled' ? [s.value] : [])
  const stopAll = async (): Promise<void> => {
    await Promise.all(running.map(async a => a.stop()))
    await rm(lockDir, { recursive: true, force: true })
  }
  const failed = started.find(s => s.status === 'rejected')
  if (failed !== undefined) {
    await stopAll()
    throw failed.reason
  }
  const anvils: Record<string, PooledAnvil> = {}
  wanted.forEach((w, i) => { anvils[poolKey(w.slot, w.blockTime)] = pooledView(running[i]) })
  project.provide('jobmeshAnvilPool', { lockDir, anvils })
  return stopAll
}

function pooledView (a: Anvil): PooledAnvil {
  return { rpcUrl: a.rpcUrl, port: a.port, chainId: a.chainId, accounts: [...a.accounts], pid: a.pid }
}
