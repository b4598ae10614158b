import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { NotStartedError } from '@libp2p/interface'
import { logger } from '@libp2p/logger'
import { createLibp2p } from 'libp2p'
import { userAgent } from 'libp2p/user-agent'
import type { HeliaWithLibp2p } from '@helia/libp2p'
import type { Helia } from '@helia/interface'
import type { Libp2p, PrivateKey, ServiceMap } from '@libp2p/interface'
import type { HeliaInit } from 'helia'
import type { Libp2pOptions } from 'libp2p'

const log = logger('jobmesh:node')

/** What helia's `Helia` class has beyond the `Helia` interface (used by helia's own mixins). */
interface HeliaCore extends Helia {
  addMixin(mixin: { name: string, start?(helia: Helia): Promise<void>, stop?(): Promise<void> }): void
  hasRouter(name: string): boolean
  addRouter(router: unknown): void
}

export interface HeliaFiles {
  Helia: new (init: Partial<HeliaInit> & { name: string, version: string }) => HeliaCore
  version: string
  libp2pRouting(libp2p: Libp2p): unknown
}

let files: Promise<HeliaFiles | undefined> | undefined

/**
 * The file URL of a package's entry point as this module resolves it (`require.resolve`: both packages export their
 * entry for `module-sync` too; vitest's `import.meta.resolve` would resolve from its own folder).
 */
function entryPoint (specifier: string): string {
  return pathToFileURL(createRequire(import.meta.url).resolve(specifier)).href
}

/**
 * helia's `Helia` class, its version and @helia/libp2p's router, read from the files that define them. The two
 * packages' entry points also import @helia/libp2p's `libp2pDefaults` (WebRTC with its native module, AutoTLS with an
 * ACME client, UPnP...), which jobmesh never uses and which took 1.1 s of a peer process's 2.6 s start on a 2-core
 * machine (docs/dependencies.md). `undefined` if a helia release moved those files (`resolve` gives a package's entry
 * point).
 */
export async function heliaFiles (resolve: (specifier: string) => string = entryPoint): Promise<HeliaFiles | undefined> {
  try {
    const [helia, version, routing] = await Promise.all([
      import(new URL('./helia.js', resolve('helia')).href),
      import(new URL('./version.js', resolve('helia')).href),
      import(new URL('./routing.js', resolve('@helia/libp2p')).href)
    ])
    if (typeof helia.Helia === 'function' && typeof version.version === 'string' && typeof routing.libp2pRouting === 'function') {
      return { Helia: helia.Helia, version: version.version, libp2pRouting: routing.libp2pRouting }
    }
    log.error('helia\'s module files changed; loading helia through its entry points')
  } catch (err) {
    log.error('helia\'s module files not found; loading helia through its entry points: %e', err)
  }
  return undefined
}

/**
 * helia without its defaults, on a libp2p built from `libp2p` alone when it starts: what helia's `createHeliaLight`
 * and @helia/libp2p's `withLibp2pLight` build, without loading `libp2pDefaults`. `parts`: helia's files as found
 * (`undefined`: through the entry points).
 */
export async function createHeliaOnLibp2p<S extends ServiceMap> (init: Pick<HeliaInit, 'datastore' | 'blockstore'>, libp2pInit: Libp2pOptions<S> & { privateKey: PrivateKey },
  parts: Promise<HeliaFiles | undefined> = (files ??= heliaFiles())): Promise<HeliaWithLibp2p<S>> {
  const found = await parts
  if (found == null) {
    const [{ createHeliaLight }, { withLibp2pLight }] = await Promise.all([import('helia'), import('@helia/libp2p')])
    return withLibp2pLight(createHeliaLight(init), libp2pInit)
  }
  const helia = new found.Helia({ name: 'helia', version: found.version, ...init })
  let libp2p: Libp2p<S> | undefined
  Object.defineProperty(helia, 'libp2p', {
    configurable: true,
    enumerable: true,
    get: (): Libp2p<S> => {
      if (libp2p == null) throw new NotStartedError('start helia first')
      return libp2p
    }
  })
  helia.addMixin({
    name: 'libp2p',
    start: async () => {
      libp2p ??= await createLibp2p({
        ...libp2pInit,
        datastore: libp2pInit.datastore ?? helia.datastore,
        nodeInfo: {
          name: libp2pInit.nodeInfo?.name ?? 'helia',
          version: libp2pInit.nodeInfo?.version ?? found.version,
          userAgent: libp2pInit.nodeInfo?.userAgent ?? `helia/${found.version} ${userAgent()}`
        }
      })
      if (!helia.hasRouter('libp2p-router')) helia.addRouter(found.libp2pRouting(libp2p))
      await libp2p.start()
    },
    stop: async () => { await libp2p?.stop() }
  })
  return helia as unknown as HeliaWithLibp2p<S>
}
