import { describe, expect, it } from 'vitest'
import { parseBootstrap, parseListen } from '../../src/node/addresses.js'

const PEER = '12D3KooWPfna2frvVfYnnXEWwpZuwYVub6ktHUrBT2Xtf3n7zbB6'

describe('parseBootstrap', () => {
  it('takes addresses that name their peer by a peer id, in either encoding', () => {
    const good = [`/ip4/127.0.0.1/tcp/4001/p2p/${PEER}`, '/ip4/127.0.0.1/tcp/4002/p2p/QmcgpsyWgH8Y8ajJz1Cu72KnS5uo2Aa2LpzU7kinSupNKC']
    expect(parseBootstrap(good)).toEqual(good)
    expect(parseBootstrap([])).toEqual([])
  })

  it('refuses an address that does not parse, or names no peer', () => {
    expect(() => parseBootstrap(['/ip4/127.0.0.1/tcp/abc'])).toThrow(expect.objectContaining({ name: 'InvalidMultiaddrError' }))
    expect(() => parseBootstrap(['/ip4/127.0.0.1/tcp/4001'])).toThrow(expect.objectContaining({
      name: 'InvalidMultiaddrError', message: 'bootstrap address /ip4/127.0.0.1/tcp/4001 lacks /p2p/<peerId>'
    }))
  })

  // they parsed as multiaddrs, and failed later in libp2p ("Please pass a multibase decoder ...", "Incorrect length")
  it('refuses an address whose /p2p part is not a peer id, naming the address', () => {
    for (const id of ['notapeerid', 'QmFoo']) {
      const addr = `/ip4/127.0.0.1/tcp/33711/p2p/${id}`
      expect(() => parseBootstrap([`/ip4/127.0.0.1/tcp/4001/p2p/${PEER}`, addr])).toThrow(expect.objectContaining({
        name: 'InvalidMultiaddrError',
        message: `bootstrap address ${addr}: its /p2p part "${id}" is not a peer id (example: /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW...)`
      }))
    }
    // a relayed address: each peer it names
    expect(() => parseBootstrap([`/ip4/127.0.0.1/tcp/4001/p2p/${PEER}/p2p-circuit/p2p/QmFoo`])).toThrow(expect.objectContaining({ name: 'InvalidMultiaddrError' }))
  })
})

describe('parseListen', () => {
  it('takes listen addresses, and refuses one that does not parse', () => {
    expect(parseListen(['/ip4/127.0.0.1/tcp/0', '/ip4/127.0.0.1/tcp/0/ws'])).toEqual(['/ip4/127.0.0.1/tcp/0', '/ip4/127.0.0.1/tcp/0/ws'])
    expect(() => parseListen(['not a multiaddr'])).toThrow(expect.objectContaining({ name: 'InvalidMultiaddrError' }))
  })
})
