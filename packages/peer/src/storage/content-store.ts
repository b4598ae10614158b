import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { unixfs } from '@helia/unixfs'
import type { UnixFS } from '@helia/unixfs'
import { logger } from '@libp2p/logger'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import * as Digest from 'multiformats/hashes/digest'
import { sha256 } from 'multiformats/hashes/sha2'
import { DEFAULT_FETCH_TIMEOUT_MS, DEFAULT_MAX_FETCH_BYTES, DEFAULT_PIN_BYTES_PER_SECOND, DEFAULT_RAW_BLOCK_MAX_BYTES } from './constants.js'
import { walkWithin } from './dag-bound.js'
import { ContentNotFoundError, ForbiddenUriError } from './errors.js'
import { readFileRange } from './file-reader.js'
import { readHttpRange } from './http-reader.js'
import { NOT_FOUND, readIpfsRange } from './ipfs-reader.js'
import { pinWalker } from './pin-walker.js'
import { heliaSignal, timedSignal } from './signal.js'
import { checkRange, parseContentUri } from './uri.js'
import type { ContentUri } from './uri.js'
import type { Blocks, CodecLoader, Pins } from '@helia/interface'

const log = logger('jobmesh:storage')

/** The parts of a helia node the content store uses. */
export interface ContentStoreComponents {
  helia: { blockstore: Blocks, pins: Pins, getCodec: CodecLoader }
}

export interface ContentStoreInit {
  /** Default `maxBytes` of `fetch` (default 256 MiB). */
  maxFetchBytes?: number
  /** Default timeout of one `fetch`, in ms (default 60 000). */
  fetchTimeoutMs?: number
  /** Outputs up to this size are stored as one raw block (default 1 MiB). */
  rawBlockMaxBytes?: number
  /**
   * A bounded pin's timeout grows by one second per this many bytes it fetched (default 1 MiB): a large input that
   * keeps arriving at least this fast is never cut; one that stalls is cut when what it earned is used up, or when
   * nothing more came for the timeout.
   */
  pinBytesPerSecond?: number
}

export interface FetchOptions {
  /** First byte to read (default 0). */
  offset?: number
  /** Bytes to read from `offset` (default: to the end); clamped to the content's size. */
  length?: number
  /** Largest answer accepted; more fails with `ContentTooLargeError`. */
  maxBytes?: number
  /** Overrides the store's fetch timeout (ms). */
  timeoutMs?: number
  /**
   * The URI came from the network (a job's spec): only `ipfs://`, and `https://` from a public address without
   * redirects, are read; anything else is a `ForbiddenUriError` (a job could name this peer's files or its network).
   */
  fromNetwork?: boolean
  signal?: AbortSignal
}

export interface AddOptions {
  signal?: AbortSignal
}

/** Reads content by URI and adds content to the node's IPFS blockstore (pinned). */
export interface ContentStore {
  /**
   * Reads `[offset, offset + length)` of the content at `uri` (`ipfs://<cid>[/path]`, `https://`, `http://`,
   * `file://`). IPFS content is read with UnixFS `cat`, so only the blocks covering the range are fetched.
   *
   * @throws UnsupportedUriError, ForbiddenUriError (`fromNetwork`), InvalidRangeError, ContentNotFoundError,
   * ContentTooLargeError, ContentTimeoutError, ContentFetchError, AbortError
   */
  fetch(uri: string, options?: FetchOptions): Promise<Uint8Array>
  /** Adds bytes as a UnixFS file, pins it and returns its CID string. */
  addBytes(bytes: Uint8Array, options?: AddOptions): Promise<string>
  /** Adds a local file as a UnixFS file (streamed), pins it and returns its CID string. */
  addFile(path: string, options?: AddOptions): Promise<string>
  /** Adds bytes as one raw block (CIDv1, raw codec, sha256 of the bytes), pins it and returns its CID string. */
  addRaw(bytes: Uint8Array, options?: AddOptions): Promise<string>
  /**
   * Adds a MicroJob output: up to `rawBlockMaxBytes` as one raw block (CIDv1 raw sha256, derivable from the output
   * hash), larger as a UnixFS file; pinned. Returns the CID string.
   */
  addOutput(bytes: Uint8Array, options?: AddOptions): Promise<string>
  /**
   * Fetches every block of the content at an `ipfs://` URI (from this node, else over bitswap) and pins it, so this
   * node keeps and serves it; of `ipfs://<cid>/<path>`, the DAG the path names. With `maxBytes` that DAG is walked
   * and counted first, and nothing is pinned when it is larger; its timeout then grows with the bytes it fetched
   * (`pinBytesPerSecond`). Returns false for other schemes (nothing to pin).
   *
   * @throws UnsupportedUriError, ContentNotFoundError (no such path), ContentTooLargeError (`maxBytes`),
   * ContentTimeoutError (not all blocks arrived within `timeoutMs` and what the fetched ones earned, or none for
   * `timeoutMs`), AbortError
   */
  pin(uri: string, options?: PinOptions): Promise<boolean>
}

export interface PinOptions {
  /** Overrides the store's fetch timeout (ms) for the whole DAG (with `maxBytes`: plus what its fetches earn). */
  timeoutMs?: number
  /** The most bytes of blocks the pin may make this node hold (the whole DAG the URI names); unbounded without. */
  maxBytes?: number
  signal?: AbortSignal
}

/** The CID (v1, raw codec, sha256) of bytes stored as one raw block (`addRaw`): how specs and small outputs are stored. */
export function rawBlockCid (bytes: Uint8Array): CID {
  return sha256RawCid(createHash('sha256').update(bytes).digest())
}

/** The CID (v1, raw codec) a small output gets from `addOutput`, derived from its sha256 (32-byte hex). */
export function rawOutputCid (outputHash: string): string {
  const hex = outputHash.startsWith('0x') ? outputHash.slice(2) : outputHash
  return sha256RawCid(Buffer.from(hex, 'hex')).toString()
}

function sha256RawCid (digest: Uint8Array): CID {
  return CID.createV1(raw.code, Digest.create(sha256.code, Uint8Array.from(digest)))
}

async function pin (pins: Pins, cid: CID, signal?: AbortSignal): Promise<void> {
  const walk = heliaSignal(signal)
  try {
    for await (const _ of pins.add(cid, { signal: walk, walker: pinWalker() })) { /* walk the DAG */ }
  } catch (err) {
    if ((err as Error).name !== 'AlreadyPinnedError') throw err
  }
}

/** The CID a path under `root` names (its blocks fetched as needed). @throws ContentNotFoundError */
async function pathTarget (fs: UnixFS, root: CID, path: string, signal: AbortSignal): Promise<CID> {
  try {
    return (await fs.stat(root, { path, signal })).cid
  } catch (err) {
    if (signal.aborted || !NOT_FOUND.has((err as Error).name)) throw err
    throw new ContentNotFoundError(`ipfs://${root}/${path}: ${(err as Error).message}`, { cause: err })
  }
}

/** Whether `cid` has a pin of its own here (not merely a block under another pin, or one of an unfinished pin). */
async function hasPin (pins: Pins, cid: CID, signal: AbortSignal): Promise<boolean> {
  try {
    await pins.get(cid, { signal })
    return true
  } catch (err) {
    if ((err as Error).name === 'NotFoundError') return false
    throw err
  }
}

async function * fileChunks (path: string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const stream = createReadStream(path, { signal })
  try {
    for await (const chunk of stream) yield new Uint8Array(chunk as Buffer)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ContentNotFoundError(`no such file: ${path}`, { cause: err })
    throw err
  }
}

/**
 * Creates a content store on a helia node.
 *
 * @example
 * ```ts
 * const store = createContentStore({ helia: node.helia })
 * const cid = await store.addBytes(bytes)
 * const part = await store.fetch(`ipfs://${cid}`, { offset: 4096, length: 4096, signal })
 * ```
 */
export function createContentStore (components: ContentStoreComponents, init: ContentStoreInit = {}): ContentStore {
  const fs = unixfs(components.helia)
  const maxFetchBytes = init.maxFetchBytes ?? DEFAULT_MAX_FETCH_BYTES
  const fetchTimeoutMs = init.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS
  const rawMax = init.rawBlockMaxBytes ?? DEFAULT_RAW_BLOCK_MAX_BYTES
  const pinBytesPerSecond = init.pinBytesPerSecond ?? DEFAULT_PIN_BYTES_PER_SECOND
  // the time a block fetched earns a bounded pin (ms); a rate that is no positive number earns none
  const pinCredit = (bytes: number): number => Number.isFinite(pinBytesPerSecond) && pinBytesPerSecond > 0 ? bytes * 1000 / pinBytesPerSecond : 0

  const addRaw = async (bytes: Uint8Array, options: AddOptions = {}): Promise<string> => {
    const cid = rawBlockCid(bytes)
    await components.helia.blockstore.put(cid, bytes, { signal: heliaSignal(options.signal) })
    await pin(components.helia.pins, cid, options.signal)
    return cid.toString()
  }
  const addBytes = async (bytes: Uint8Array, options: AddOptions = {}): Promise<string> => {
    const cid = await fs.addBytes(bytes, { signal: heliaSignal(options.signal) })
    await pin(components.helia.pins, cid, options.signal)
    log('added %c (%d bytes)', cid, bytes.byteLength)
    return cid.toString()
  }

  return {
    async fetch (uri, options = {}) {
      const parsed = parseContentUri(uri)
      if (options.fromNetwork === true) networkReadable(parsed)
      const range = checkRange(options.offset, options.length)
      const maxBytes = options.maxBytes ?? maxFetchBytes
      const timed = timedSignal(options.signal, options.timeoutMs ?? fetchTimeoutMs)
      try {
        if (parsed.scheme === 'ipfs') return await readIpfsRange(fs, parsed.cid, parsed.path, range, maxBytes, timed.signal)
        if (parsed.scheme === 'http') return await readHttpRange(parsed.url, range, maxBytes, timed.signal, { publicOnly: options.fromNetwork })
        return await readFileRange(parsed.url, range, maxBytes, timed.signal)
      } catch (err) {
        if (timed.signal.aborted) throw timed.reason(`fetching ${uri}`)
        throw err
      } finally {
        timed.clear()
      }
    },
    addBytes,
    async addFile (path, options = {}) {
      const cid = await fs.addByteStream(fileChunks(path, options.signal), { signal: heliaSignal(options.signal) })
      await pin(components.helia.pins, cid, options.signal)
      log('added file %s as %c', path, cid)
      return cid.toString()
    },
    async pin (uri, options = {}) {
      const parsed = parseContentUri(uri)
      if (parsed.scheme !== 'ipfs') return false
      const timed = timedSignal(options.signal, options.timeoutMs ?? fetchTimeoutMs)
      let cid = parsed.cid
      try {
        // `ipfs://<dir>/<path>`: what the path names is held, not the whole directory
        if (parsed.path !== '') cid = await pathTarget(fs, parsed.cid, parsed.path, timed.signal)
        // pinned here already (its pin record is written only once its whole DAG was walked): nothing to fetch or count
        if (await hasPin(components.helia.pins, cid, timed.signal)) return true
        if (options.maxBytes !== undefined) {
          const onBlock = (bytes: number): void => { timed.extend(pinCredit(bytes)) }
          await walkWithin(components.helia, cid, { maxBytes: options.maxBytes, signal: timed.signal, onBlock })
        }
        await pin(components.helia.pins, cid, timed.signal)
      } catch (err) {
        if (timed.signal.aborted) throw timed.reason(`pinning ${uri}`)
        throw err
      } finally {
        timed.clear()
      }
      log('pinned %c (%s)', cid, uri)
      return true
    },
    addRaw,
    async addOutput (bytes, options = {}) {
      return bytes.byteLength > rawMax ? addBytes(bytes, options) : addRaw(bytes, options)
    }
  }
}

/** Throws unless a URI a job named may be read at all: `ipfs://` or `https://` (its host is checked when connecting). */
function networkReadable (parsed: ContentUri): void {
  if (parsed.scheme === 'ipfs' || (parsed.scheme === 'http' && parsed.url.protocol === 'https:')) return
  throw new ForbiddenUriError(`${parsed.uri}: a job's content is read from ipfs:// or https:// only`)
}
