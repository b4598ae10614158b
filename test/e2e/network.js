// startNetwork of the e2e tests (re-exported by helpers.ts), in plain JS (types in network.d.ts) so that bench/ starts
// its devnets the same way without a TypeScript loader.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createJobClient } from '@jobmesh/dapp-sdk'
import { startDevnet } from '@jobmesh/peer/devnet'

/** Starts a devnet in a fresh temp dir (short verification windows) and a DApp client on it. */
export async function startNetwork (init = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'jobmesh-e2e-'))
  const devnet = await startDevnet({
    dir,
    ...init,
    contracts: { ...init.contracts, escrow: { commitWindow: 6, revealWindow: 6, ...init.contracts?.escrow } }
  })
  let client
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
