import { generateKeyPair } from '@libp2p/crypto/keys'
import { afterEach, describe, expect, it } from 'vitest'
import { createHeliaOnLibp2p, heliaFiles } from '../../src/node/helia-light.js'
import { libp2pOptions } from '../../src/node/libp2p-options.js'
import { parseListen } from '../../src/node/addresses.js'
import { openStorage } from '../../src/node/storage.js'
import type { NodeServices } from '../../src/node/types.js'
import type { HeliaWithLibp2p } from '@helia/libp2p'

const started: Array<HeliaWithLibp2p<NodeServices>> = []

afterEach(async () => {
  await Promise.all(started.splice(0).map(async h => h.stop()))
})

describe('helia without its defaults', () => {
  it('finds helia\'s class, version and libp2p router in the files of the installed releases (else every start loads libp2pDefaults again)', async () => {
    const files = await heliaFiles()
    expect(files).toBeDefined()
    expect(files?.version).toMatch(/^\d+\.\d+\.\d+/)
    expect(typeof files?.Helia).toBe('function')
  })

  it('finds nothing where a release moved them (a package whose entry point is elsewhere)', async () => {
    expect(await heliaFiles(() => 'file:///nonexistent/helia/dist/src/index.js')).toBeUndefined()
  })

  for (const [how, parts] of [['from helia\'s files', undefined], ['through the entry points when the files moved', Promise.resolve(undefined)]] as const) {
    it(`builds libp2p when helia starts, adds it as a content router, and stops it with helia (${how})`, async () => {
      const { datastore, blockstore } = await openStorage(undefined)
      const helia = await createHeliaOnLibp2p({ datastore, blockstore }, libp2pOptions({
        privateKey: await generateKeyPair('Ed25519'),
        datastore,
        listen: parseListen(['/ip4/127.0.0.1/tcp/0']),
        bootstrap: [],
        mdns: false,
        dhtClientMode: false
      }), parts)
      expect(() => helia.libp2p).toThrow(expect.objectContaining({ name: 'NotStartedError' }))
      started.push(helia)
      await helia.start()
      expect(helia.libp2p.status).toBe('started')
      expect(helia.libp2p.getMultiaddrs().length).toBeGreaterThan(0)
      expect((helia as unknown as { hasRouter(name: string): boolean }).hasRouter('libp2p-router')).toBe(true)
      await helia.stop()
      expect(helia.libp2p.status).toBe('stopped')
    })
  }
})
