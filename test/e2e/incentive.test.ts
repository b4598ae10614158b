import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Wallet, formatEther, parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { createChainClient, rpcCall } from '@jobmesh/contracts'
import { CLI_BIN } from '@jobmesh/peer'
import { peerStatus, startNetwork } from './helpers.js'
import type { Network } from './helpers.js'

const run = promisify(execFile)

/** `jobmesh <args>` to its end: exit code and output (a failing exit is a result here, not an error). */
async function jobmesh (args: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI_BIN, ...args], { timeout: 60_000, env: { ...process.env, JOBMESH_RPC_URL: '' } })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code?: number, stdout?: string, stderr?: string }
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

describe('the incentive pool on a devnet of 2 jobmesh processes', () => {
  let net: Network | undefined

  afterEach(async () => {
    await net?.stop()
    net = undefined
  })

  it('each peer holds a share from its start; a funding streams out to them; `jobmesh claim` pays a peer its half', async () => {
    net = await startNetwork({ peers: 2 })
    const { devnet } = net
    const rpcUrl = devnet.anvil.rpcUrl

    // each peer recorded its share when it started: R, P and B of a new node (B = 1000 of 2000)
    for (const p of devnet.peers) {
      const s = await peerStatus(p.dataDir)
      expect(s.chain?.incentive?.share).toBeGreaterThan(0.5)
      expect(s.chain?.incentive?.earnedWei).toBe('0')
    }

    const funder = createChainClient({ rpcUrl, signer: new Wallet(devnet.dapp.privateKey), deployment: devnet.deployment })
    try {
      await funder.fundIncentive(parseEther('2'))
    } finally {
      funder.provider.destroy()
    }
    // the whole stream period (7 days) passes
    await rpcCall(rpcUrl, 'evm_increaseTime', [8 * 86_400], { timeout: 10_000 })
    await rpcCall(rpcUrl, 'evm_mine', [], { timeout: 10_000 })

    const peer = devnet.peers[0]
    const wallet = ['--rpc', rpcUrl, '--deployment', devnet.deploymentFile, '--key-file', join(peer.dataDir, 'wallet.key')]
    const earned = BigInt((await peerStatus(peer.dataDir)).chain?.incentive?.earnedWei ?? '0')
    // two nodes of the same hardware and scores, both recorded before the funding: half each (up to rounding)
    expect(earned).toBeGreaterThan(parseEther('0.999'))
    expect(earned).toBeLessThanOrEqual(parseEther('1'))

    const claimed = await jobmesh(['claim', ...wallet])
    expect(claimed.stderr).toBe('')
    expect(claimed.code).toBe(0)
    expect(claimed.stdout).toContain(`claimed ${formatEther(earned)} ETH`)
    expect(BigInt((await peerStatus(peer.dataDir)).chain?.incentive?.earnedWei ?? '-1')).toBe(0n)

    const again = await jobmesh(['claim', ...wallet])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('nothing to claim')

    const noChain = await jobmesh(['claim'])
    expect(noChain.code).toBe(2)
    expect(noChain.stderr).toContain('--rpc <url>')
  }, 180_000)
})
