import { createProvider } from '@jobmesh/contracts'
import { Wallet, parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { startChain, workerAnvil } from '../src/anvil/index.js'
import { waitFor } from '../src/index.js'
import type { Anvil } from '@jobmesh/contracts'
import type { JsonRpcProvider } from 'ethers'

const lent: Anvil[] = []
afterEach(async () => {
  await Promise.all(lent.splice(0).map(async a => a.stop()))
})

async function lend (init: Parameters<typeof workerAnvil>[0] = {}): Promise<Anvil> {
  const anvil = await workerAnvil(init)
  lent.push(anvil)
  return anvil
}

async function head (anvil: Anvil): Promise<{ number: number, timestamp: number, balance: bigint, nonce: number }> {
  const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
  try {
    const block = await provider.getBlock('latest')
    const address = anvil.accounts[0].address
    return { number: block?.number ?? -1, timestamp: block?.timestamp ?? -1, balance: await provider.getBalance(address), nonce: await provider.getTransactionCount(address) }
  } finally {
    provider.destroy()
  }
}

async function txPool (provider: JsonRpcProvider): Promise<{ pending: string[], queued: string[] }> {
  const pool = await provider.send('txpool_content', []) as { pending: Record<string, unknown>, queued: Record<string, unknown> }
  return { pending: Object.keys(pool.pending), queued: Object.keys(pool.queued) }
}

describe('one anvil per test worker', () => {
  it('lends the worker\'s anvil and gives the next test the same fresh chain: state, blocks and clock put back', async () => {
    const first = await lend({ accounts: 3 })
    expect(first.accounts).toHaveLength(3)
    const before = await head(first)
    const provider = createProvider(first.rpcUrl, { chainId: first.chainId })
    const sender = new Wallet(first.accounts[0].privateKey, provider)
    await (await sender.sendTransaction({ to: first.accounts[1].address, value: parseEther('1') })).wait()
    await provider.send('evm_increaseTime', [86_400])
    await provider.send('evm_mine', [])
    // a transaction left pending (a nonce gap) must not survive into the next test
    await provider.send('eth_sendTransaction', [{ from: first.accounts[2].address, to: first.accounts[1].address, value: '0x1', nonce: '0x5' }])
    expect(await txPool(provider)).not.toEqual({ pending: [], queued: [] })
    provider.destroy()
    const changed = await head(first)
    expect(changed.nonce).toBe(before.nonce + 1)
    expect(changed.timestamp).toBeGreaterThan(before.timestamp + 86_000)
    await first.stop()

    const second = await lend({ accounts: 3 })
    expect(second.rpcUrl).toBe(first.rpcUrl) // the same anvil, not a new one
    expect(await head(second)).toMatchObject({ number: before.number, balance: before.balance, nonce: before.nonce })
    const p = createProvider(second.rpcUrl, { chainId: second.chainId })
    await p.send('evm_mine', [])
    const mined = await head(second)
    expect(mined.number).toBe(before.number + 1)
    expect(Math.abs(mined.timestamp - Math.floor(Date.now() / 1000))).toBeLessThanOrEqual(2) // the clock is now again
    expect(await txPool(p)).toEqual({ pending: [], queued: [] })
    p.destroy()
  })

  it('gives a second anvil at once, and options the pool does not cover, an anvil of their own that stop kills', async () => {
    const pooled = await lend()
    const second = await lend()
    const other = await lend({ chainId: 1337, accounts: 2 })
    expect(new Set([pooled.rpcUrl, second.rpcUrl, other.rpcUrl]).size).toBe(3)
    expect(other.chainId).toBe(1337)
    await second.stop()
    expect(() => process.kill(second.pid, 0)).toThrow()
    expect(() => process.kill(pooled.pid, 0)).not.toThrow()
  })

  it('keeps one anvil per block time: an interval-mined chain keeps mining and is put back too', async () => {
    const chain = await startChain({ accounts: 2, blockTime: 0.1 })
    const start = await chain.clients[0].provider.getBlockNumber()
    const later = await waitFor(async () => {
      const n = await chain.clients[0].provider.getBlockNumber()
      return n >= start + 3 && n
    }, { what: 'three blocks mined without transactions', timeoutMs: 5_000 })
    expect(await chain.clients[1].nodeInfo()).toMatchObject({ registered: false })
    const rpcUrl = chain.anvil.rpcUrl
    await chain.stop()
    const again = await lend({ blockTime: 0.1 })
    expect(again.rpcUrl).toBe(rpcUrl)
    expect((await head(again)).number).toBeLessThan(later) // reverted to the block the test was lent at
  })
})
