import { createServer } from 'node:http'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { probeChainId, rpcCall } from '../src/index.js'
import type { Server } from 'node:http'

/** A JSON-RPC endpoint that answers every call with `answer(method)`, or never when `answer` returns undefined. */
async function endpoint (answer: (method: string) => object | undefined): Promise<{ url: string, server: Server }> {
  const server = createServer((req, res) => {
    let text = ''
    req.on('data', (chunk: Buffer) => { text += chunk.toString() })
    req.on('end', () => {
      const { id, method } = JSON.parse(text) as { id: number, method: string }
      const body = answer(method)
      if (body !== undefined) res.end(JSON.stringify({ jsonrpc: '2.0', id, ...body }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server }
}

describe('rpcCall', () => {
  let server: Server | undefined

  beforeEach(() => { server = undefined })
  afterEach(async () => {
    server?.closeAllConnections()
    await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve())
  })

  it('resolves to the result, and an error object becomes JsonRpcError with the method and the message', async () => {
    const ep = await endpoint((method) => method === 'evm_snapshot' ? { result: '0x1' } : { error: { code: -32601, message: 'no such method' } })
    server = ep.server
    expect(await rpcCall(ep.url, 'evm_snapshot', [])).toBe('0x1')
    await expect(rpcCall(ep.url, 'evm_nothing', [1])).rejects.toMatchObject({
      name: 'JsonRpcError', method: 'evm_nothing', rpcMessage: 'no such method', code: -32601, message: 'evm_nothing failed: no such method'
    })
  })

  it('says which method an endpoint did not answer in time, and stops at the AbortSignal', async () => {
    const ep = await endpoint(() => undefined)
    server = ep.server
    await expect(rpcCall(ep.url, 'evm_revert', ['0x1'], { timeout: 200 })).rejects.toMatchObject({
      name: 'RpcUnreachableError', message: `RPC endpoint ${ep.url} did not answer evm_revert within 200 ms`
    })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    await expect(rpcCall(ep.url, 'evm_revert', [], { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('says why fetch would not dial an endpoint (a port of its block list)', async () => {
    await expect(rpcCall('http://127.0.0.1:9', 'eth_chainId', [], { timeout: 2_000 })).rejects.toMatchObject({
      name: 'RpcUnreachableError',
      message: 'port 9 of http://127.0.0.1:9 is one that fetch refuses to dial (the block list of 1, 9, 25, 6000 and others): give the chain another port'
    })
  })

  it('says an https:// URL reached a plain HTTP endpoint in one line, not OpenSSL\'s internals', async () => {
    const ep = await endpoint(() => ({ result: '0x7a69' }))
    server = ep.server
    const url = ep.url.replace('http://', 'https://')
    const err = await rpcCall(url, 'eth_chainId', [], { timeout: 2_000 }).catch((e: unknown) => e as Error)
    expect(err.name).toBe('RpcUnreachableError')
    // the code is OpenSSL's: WRONG_VERSION_NUMBER with 3.0 (Node 20), PACKET_LENGTH_TOO_LONG with 3.2 and later
    expect(err.message).toMatch(new RegExp(`^no TLS at ${new URL(url).host} \\(ERR_SSL_[A-Z_]+; an http:// endpoint given as https://\\?\\)$`))
  })

  it('probeChainId keeps RpcUnreachableError for an answer without a chain id', async () => {
    const ep = await endpoint(() => ({ error: { code: -32000, message: 'boom' } }))
    server = ep.server
    const err = await probeChainId(ep.url).catch((e: unknown) => e as Error)
    expect(err).toMatchObject({ name: 'RpcUnreachableError', message: `RPC endpoint ${ep.url} answered eth_chainId with an error: boom` })
    expect(err.cause).toMatchObject({ name: 'JsonRpcError', method: 'eth_chainId' })
  })
})
