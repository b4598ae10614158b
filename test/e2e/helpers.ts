import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createJobClient } from '@jobmesh/dapp-sdk'
import { startDevnet } from '@jobmesh/peer'
import type { JobClient } from '@jobmesh/dapp-sdk'
import type { Devnet, DevnetInit } from '@jobmesh/peer'

/** The test peer that returns wrong outputs (`entry` of a devnet peer; modes in the file). */
export const CHEATING_PEER = fileURLToPath(new URL('./peers/cheating-peer.mjs', import.meta.url))

/** A devnet and a DApp client connected to it, stopped together. */
export interface Network {
  devnet: Devnet
  client: JobClient
  stop(): Promise<void>
}

/** Starts a devnet in a fresh temp dir (short verification windows) and a DApp client on it. */
export async function startNetwork (init: DevnetInit = {}): Promise<Network> {
  const dir = await mkdtemp(join(tmpdir(), 'jobmesh-e2e-'))
  const devnet = await startDevnet({
    dir,
    ...init,
    contracts: { ...init.contracts, escrow: { commitWindow: 6, revealWindow: 6, ...init.contracts?.escrow } }
  })
  let client: JobClient
  try {
    client = await createJobClient({
      rpcUrl: devnet.anvil.rpcUrl,
      signer: devnet.dapp.privateKey,
      deployment: devnet.deployment,
      bootstrap: devnet.bootstrap
    })
  } catch (err) {
    await devnet.stop()
    throw err
  }
  return {
    devnet,
    client,
    stop: async () => {
      if (process.env.JOBMESH_E2E_LOGS != null) {
        for (const p of devnet.peers) process.stderr.write(`---- ${p.name}\n${p.output.slice(-60).join('\n')}\n`)
      }
      await client.stop().catch(() => {})
      await devnet.stop()
      await rm(dir, { recursive: true, force: true })
    }
  }
}

/** Waits until `done` MicroJobs of the job have results (or the progress iterator ends). */
export async function progressAtLeast (client: JobClient, jobId: string, done: number, signal?: AbortSignal): Promise<number> {
  let seen = 0
  for await (const p of client.progress(jobId, { signal })) {
    seen = p.done
    if (p.done >= done) break
  }
  return seen
}

/**
 * A job's story for a failing test: its escrow events in order, the job's state, and what each peer logged about it
 * (peer output carries `DEBUG=jobmesh:*` lines when the test runs with DEBUG set).
 */
export async function jobHistory (devnet: Devnet, jobId: string): Promise<string> {
  const { connect, createProvider } = await import('@jobmesh/contracts')
  const provider = createProvider(devnet.anvil.rpcUrl, { chainId: devnet.anvil.chainId })
  try {
    const { jobEscrow, nodeRegistry } = connect(devnet.deployment, provider)
    const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => typeof x === 'bigint' ? x.toString() : x)
    const lines = [`job ${jobId} at block ${await provider.getBlockNumber()}`]
    for (const e of await jobEscrow.queryFilter('*' as never, 0)) {
      if ('args' in e && String(e.args[0]).toLowerCase() === jobId.toLowerCase()) lines.push(`  ${e.blockNumber} ${e.eventName} ${json(e.args.toArray().slice(1))}`)
    }
    lines.push(`  state ${json((await jobEscrow.jobs(jobId)).toArray())}`)
    const needle = jobId.slice(2, 14).toLowerCase()
    for (const [i, p] of devnet.peers.entries()) {
      const info = await nodeRegistry.nodeInfo(devnet.peerAccount(i).address)
      lines.push(`  peer ${i} ${devnet.peerAccount(i).address} ${p.peerId} eligible ${String(info.eligible)} busy ${String(info.busy)} paused ${String(info.paused)} kicked ${String(info.kickedOut)} stake ${String(info.stake)}`)
      for (const l of p.output) if (l.toLowerCase().includes(needle)) lines.push(`    ${l.slice(0, 300)}`)
      for (const l of p.output.filter(l => /error|failed/i.test(l)).slice(-10)) lines.push(`    ! ${l.slice(0, 300)}`)
    }
    return lines.join('\n')
  } finally {
    provider.destroy()
  }
}

/** Polls a condition every 250 ms until it holds; fails with `what` after `timeoutMs`. */
export async function until<T> (what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 250))
  }
}
