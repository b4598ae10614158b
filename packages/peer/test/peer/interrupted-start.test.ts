import { createServer } from 'node:http'
import { createChainClient, createProvider, deploy } from '@jobmesh/contracts'
import { workerAnvil } from '@jobmesh/testkit/anvil'
import { Wallet, parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { createPeer } from '../../src/peer.js'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Anvil } from '@jobmesh/contracts'

let anvil: Anvil | undefined
let proxy: Server | undefined

afterEach(async () => {
  if (proxy != null) await new Promise(resolve => proxy?.close(resolve))
  proxy = undefined
  await anvil?.stop()
  anvil = undefined
})

/**
 * A JSON-RPC proxy to `target` that calls `onSend` with the number of each `eth_sendRawTransaction` it forwards (one
 * request at a time: ethers batches nothing here, `batchMaxCount` 1).
 */
async function rpcProxy (target: string, onSend: (count: number) => void): Promise<string> {
  let sent = 0
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8')
      const calls = [JSON.parse(body)].flat() as Array<{ method: string }>
      for (const c of calls) if (c.method === 'eth_sendRawTransaction') onSend(++sent)
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async r => { res.writeHead(r.status, { 'content-type': 'application/json' }); res.end(await r.text()) })
        .catch(() => { res.writeHead(502); res.end() })
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  proxy = server
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('a start cut short after it registered the node', () => {
  it('takes the node out of the verifier draw: left in it with nothing running, it was drawn, missed its seed and was slashed', async () => {
    anvil = await workerAnvil({ accounts: 2 })
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    const deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider))
    const reader = createChainClient({ provider, signer: new Wallet(anvil.accounts[0].privateKey), deployment })
    const node = anvil.accounts[1].address
    // the start's transactions: the seed commitment, the registration, then (the node registered) the incentive
    // share's record: Ctrl-C then, as an operator who sees a wrong --vram go by
    const interrupt = new AbortController()
    const rpcUrl = await rpcProxy(anvil.rpcUrl, n => { if (n === 3) interrupt.abort(new Error('interrupted (SIGINT)')) })
    const started = createPeer({
      listen: ['/ip4/127.0.0.1/tcp/0'],
      process: false,
      vramGb: 8,
      signal: interrupt.signal,
      chain: { rpcUrl, privateKey: anvil.accounts[1].privateKey, deployment, stake: parseEther('0.1') }
    })
    const err = await started.then(async (peer) => { await peer.stop(); return undefined }, (e: Error) => e)
    expect(interrupt.signal.aborted).toBe(true)
    expect(err).toBeDefined()
    const info = await reader.nodeInfo(node)
    // registered by the start, and out of the draw (it was left unpaused and eligible)
    expect(info.registered).toBe(true)
    expect(info.paused).toBe(true)
    expect(info.eligible).toBe(false)
    provider.destroy()
  })
})
