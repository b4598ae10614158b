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
    contracts: { escrow: { commitWindow: 6, revealWindow: 6 } },
    ...init
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
