import { JsonRpcProvider, Wallet } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { parseAnvilBanner, startAnvil } from '../src/anvil.js'
import { rpcCall } from '../src/rpc-call.js'
import type { Anvil } from '../src/anvil.js'

describe('startAnvil', () => {
  let anvil: Anvil | undefined

  afterEach(async () => {
    await anvil?.stop()
    anvil = undefined
  })

  it('starts on a free port, reports its accounts and stops', async () => {
    anvil = await startAnvil({ accounts: 3, chainId: 1337 })
    expect(anvil.port).toBeGreaterThan(0)
    expect(anvil.accounts).toHaveLength(3)
    expect(new Wallet(anvil.accounts[0].privateKey).address).toBe(anvil.accounts[0].address)
    const provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 })
    expect(await provider.send('eth_chainId', [])).toBe('0x539')
    provider.destroy()
    const pid = anvil.pid
    await anvil.stop()
    await anvil.stop()
    expect(() => process.kill(pid, 0)).toThrow()
  })

  it('keeps only historyStates past states, in memory (nothing written to disk)', async () => {
    const balanceAt = async (a: Anvil, block: string): Promise<unknown> => await rpcCall(a.rpcUrl, 'eth_getBalance', [a.accounts[0].address, block])
    anvil = await startAnvil({ accounts: 1, historyStates: 4 })
    await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x14'])
    await expect(balanceAt(anvil, '0x1')).rejects.toMatchObject({ name: 'JsonRpcError' })
    expect(await balanceAt(anvil, '0x13')).toMatch(/^0x/)
    await anvil.stop()

    anvil = await startAnvil({ accounts: 1 })
    await rpcCall(anvil.rpcUrl, 'anvil_mine', ['0x14'])
    expect(await balanceAt(anvil, '0x1')).toMatch(/^0x/)
  })

  it('fails with AnvilStartError on bad arguments', async () => {
    await expect(startAnvil({ args: ['--no-such-flag'] })).rejects.toMatchObject({ name: 'AnvilStartError' })
  })

  it('honours an aborted signal', async () => {
    await expect(startAnvil({ signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('parses the banner', () => {
    const p = parseAnvilBanner('Available Accounts\n==\n\n(0) 0xAb (1 ETH)\n\nPrivate Keys\n==\n\n(0) 0x01\n\nListening on 127.0.0.1:1234\n')
    expect(p).toEqual({ accounts: [{ address: '0xAb', privateKey: '0x01' }], host: '127.0.0.1', port: 1234 })
  })
})
