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

  it('each peer holds a share by its scores from its start (one with a shorter timeout); a funding streams out by share; `jobmesh claim` pays it', async () => {
    // peer 0 promises to commit within half a commit window (its stake covers it): a better timeout score P
    net = await startNetwork({ peers: 2, peer: (i) => i === 0 ? { commitTimeoutPct: 50 } : {} })
    const { devnet } = net
    const rpcUrl = devnet.anvil.rpcUrl

    // each peer recorded its share when it started: 0.25 R + 0.25 P + 0.5 B, a new node's B = 1000 of 2000
    const shares: number[] = []
    for (const p of devnet.peers) {
      const s = await peerStatus(p.dataDir)
      expect(s.chain?.incentive?.earnedWei).toBe('0')
      shares.push(s.chain?.incentive?.share ?? 0)
    }
    expect((await peerStatus(devnet.peers[0].dataDir)).chain?.qos?.timeoutPct).toBe(50)
    expect(shares[0]).toBeCloseTo(0.25 + 0.25 * 50 / 75 + 0.25, 5)
    expect(shares[1]).toBeCloseTo(0.25 + 0 + 0.25, 5)

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
    // both shares recorded before the funding, held for the whole stream: 2 ETH split by share (up to rounding)
    const expected = Number(parseEther('2')) * shares[0] / (shares[0] + shares[1])
    expect(Math.abs(Number(earned) - expected)).toBeLessThan(1e12)

    const claimed = await jobmesh(['claim', ...wallet])
    expect(claimed.stderr).toBe('')
    expect(claimed.code).toBe(0)
    expect(claimed.stdout).toContain(`claimed ${formatEther(earned)} ETH`)
    expect(BigInt((await peerStatus(peer.dataDir)).chain?.incentive?.earnedWei ?? '-1')).toBe(0n)

    const again = await jobmesh(['claim', '--json', ...wallet])
    expect(again.code).toBe(0)
    // --json: one document, nothing claimed the second time, the share recorded (the claim recorded it)
    const report = JSON.parse(again.stdout) as { address: string, claimedWei: string, tx: string | null, share: number, shareNow: number }
    expect(report).toMatchObject({ claimedWei: '0', tx: null })
    expect(report.address.toLowerCase()).toBe(devnet.peerAccount(0).address.toLowerCase())
    expect(report.share).toBeGreaterThan(0)
    expect(report.share).toBeCloseTo(report.shareNow, 5)

    const noChain = await jobmesh(['claim'])
    expect(noChain.code).toBe(2)
    expect(noChain.stderr).toContain('--rpc <url>')
  }, 180_000)
})
