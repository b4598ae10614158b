import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { unixfs } from '@helia/unixfs'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import * as Digest from 'multiformats/hashes/digest'
import { sha256 } from 'multiformats/hashes/sha2'
import { AbortError, DownloadError, UploadError } from './errors.js'
import type { AbortOptions } from '@libp2p/interface'
import type { Helia } from '@helia/interface'

/**
 * Code or data of a job: bytes (uploaded), a local file path or `file://` URL (uploaded), or an `ipfs://` /
 * `https://` URI (used as is), or `{ uri }` for any URI the spec accepts, used as is.
 */
export type ContentInput = Uint8Array | string | { uri: string }

/** Where content ended up. */
export interface ContentRef {
  /** The URI that goes into the JobSpec (`ipfs://<cid>` for uploads). */
  uri: string
  /** Size in bytes, when known (uploads, or `ipfs://` content present locally). */
  size?: number
  /** Whether the SDK added the bytes to its helia (and pinned them). */
  uploaded: boolean
}

const PASS_THROUGH = ['ipfs://', 'https://']

async function drain (it: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of it) { /* consume */ }
}

/**
 * Resolves one code/data input: uploads bytes and files to `helia` as UnixFS and pins them, so peers fetch them
 * by CID over bitswap; URIs are kept.
 *
 * @throws UploadError (unreadable file, blockstore failure), AbortError
 */
export async function resolveContent (helia: Helia, input: ContentInput, what: string, options: AbortOptions = {}): Promise<ContentRef> {
  options.signal?.throwIfAborted()
  if (typeof input === 'object' && !(input instanceof Uint8Array)) {
    return { uri: input.uri, uploaded: false }
  }
  if (typeof input === 'string' && PASS_THROUGH.some(p => input.startsWith(p))) {
    return { uri: input, uploaded: false }
  }
  const fs = unixfs(helia)
  try {
    let cid: CID
    let size: number
    if (input instanceof Uint8Array) {
      cid = await fs.addBytes(input, { signal: options.signal })
      size = input.byteLength
    } else {
      const path = input.startsWith('file://') ? fileURLToPath(input) : input
      size = (await stat(path)).size
      cid = await fs.addByteStream(createReadStream(path), { signal: options.signal })
    }
    // the same bytes uploaded before are pinned already
    if (!(await helia.pins.isPinned(cid, options))) await drain(helia.pins.add(cid, options))
    return { uri: `ipfs://${cid.toString()}`, size, uploaded: true }
  } catch (err) {
    if (options.signal?.aborted === true) throw new AbortError(`upload of ${what} aborted`, { cause: err })
    throw new UploadError(`cannot upload ${what}: ${(err as Error).message}`, { cause: err })
  }
}

/** The raw-codec CIDv1 of bytes (how the spec is stored, and the default output CID of a result). */
export async function rawCid (bytes: Uint8Array): Promise<CID> {
  return CID.createV1(raw.code, await sha256.digest(bytes))
}

/** The raw-codec CIDv1 that a sha256 digest names (a result's default output CID). */
export function rawCidOfSha256 (digest: Uint8Array): CID {
  return CID.createV1(raw.code, Digest.create(sha256.code, digest))
}

/**
 * Stores bytes as one raw block and pins it; returns its CID. The spec is stored this way, so its CID is the CID
 * of its canonical bytes (docs/protocol.md).
 */
export async function putRaw (helia: Helia, bytes: Uint8Array, what: string, options: AbortOptions = {}): Promise<CID> {
  const cid = await rawCid(bytes)
  try {
    await helia.blockstore.put(cid, bytes, options)
    if (!(await helia.pins.isPinned(cid, options))) await drain(helia.pins.add(cid, options))
    return cid
  } catch (err) {
    if (options.signal?.aborted === true) throw new AbortError(`upload of ${what} aborted`, { cause: err })
    throw new UploadError(`cannot store ${what}: ${(err as Error).message}`, { cause: err })
  }
}

/**
 * Fetches content by CID (locally or from peers over bitswap): a raw block as is, anything else as a UnixFS file.
 *
 * @throws DownloadError, AbortError
 */
export async function fetchContent (helia: Helia, cid: CID, options: AbortOptions = {}): Promise<Uint8Array> {
  try {
    const parts: Uint8Array[] = []
    const source: AsyncIterable<Uint8Array> = cid.code === raw.code
      ? toIterable(await helia.blockstore.get(cid, options))
      : unixfs(helia).cat(cid, options)
    for await (const p of source) parts.push(p)
    return parts.length === 1 ? parts[0] : new Uint8Array(Buffer.concat(parts))
  } catch (err) {
    if (options.signal?.aborted === true) throw new AbortError(`download of ${cid.toString()} aborted`, { cause: err })
    throw new DownloadError(`cannot fetch ${cid.toString()}: ${(err as Error).message}`, { cause: err })
  }
}

function toIterable (value: Uint8Array | AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncIterable<Uint8Array> {
  if (value instanceof Uint8Array) {
    return (async function * () { yield value })()
  }
  return value as AsyncIterable<Uint8Array>
}
