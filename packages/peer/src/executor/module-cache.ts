import { logger } from '@libp2p/logger'
import { sha256Hex } from './hash.js'
import { checkDeclaredMemory, compileJobCode } from './job-code.js'
import { capMemory, capTable } from './wasm-binary.js'
import { MAX_TABLE_ENTRIES, WASM_MAX_PAGES, WASM_PAGE_BYTES } from './constants.js'
import type { WasmModule } from './wasm-api.js'

const log = logger('jobmesh:executor:cache')

/** A module that passed the static checks and is compiled, ready to post to a worker. */
export interface PreparedModule {
  /** sha256 of the code as given (before the memory cap), 0x hex. */
  hash: string
  module: WasmModule
}

export interface ModuleCacheInit {
  maxEntries: number
  maxMemoryBytes: number
}

export interface ModuleCache {
  get(code: Uint8Array): Promise<PreparedModule>
  clear(): void
}

/**
 * Checks a module statically and compiles it, with its memory capped one page above the limit so that a
 * module growing past the limit is seen growing past it (and refused any further).
 */
async function prepare (code: Uint8Array, hash: string, maxMemoryBytes: number): Promise<PreparedModule> {
  checkDeclaredMemory(code, maxMemoryBytes)
  const limitPages = Math.floor(maxMemoryBytes / WASM_PAGE_BYTES)
  const capped = capTable(capMemory(code, Math.min(limitPages + 1, WASM_MAX_PAGES)), MAX_TABLE_ENTRIES)
  const module = await compileJobCode(capped)
  log('compiled %s (%d bytes)', hash, code.length)
  return { hash, module }
}

/**
 * A least-recently-used cache of prepared modules keyed by the sha256 of the code: each distinct module is
 * checked and compiled once. Failures are not cached.
 */
export function createModuleCache (init: ModuleCacheInit): ModuleCache {
  const entries = new Map<string, Promise<PreparedModule>>()

  return {
    async get (code) {
      const hash = sha256Hex(code)
      let entry = entries.get(hash)
      if (entry != null) {
        entries.delete(hash)
        entries.set(hash, entry)
        return entry
      }
      entry = prepare(code, hash, init.maxMemoryBytes)
      entries.set(hash, entry)
      entry.catch(() => {
        if (entries.get(hash) === entry) {
          entries.delete(hash)
        }
      })
      while (entries.size > init.maxEntries) {
        const oldest = entries.keys().next().value
        if (oldest === undefined) {
          break
        }
        entries.delete(oldest)
      }
      return entry
    },
    clear () {
      entries.clear()
    }
  }
}
