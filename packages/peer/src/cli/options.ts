import { stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { InvalidArgumentError } from 'commander'
import { isRpcUrl } from '@jobmesh/contracts'
import { multiaddr } from '@multiformats/multiaddr'
import { DEFAULT_DATA_DIR, MAX_DEVNET_PEERS, MIN_DEVNET_PEERS } from './constants.js'
import { UsageError } from './errors.js'
import { kernelFilesystem } from './kernel-fs.js'
import { parseHttpAddress } from '../http/index.js'
import type { HttpAddress } from '../http/index.js'

/** Digits, with a decimal fraction or not (`2`, `0.5`, `.25`): no sign, exponent, hex or blank, which `Number` takes. */
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/

/** A commander parser of a decimal number that `accepts`; the message says what was `expected`. */
function decimal (accepts: (n: number) => boolean, expected: string): (value: string) => number {
  return (value: string): number => {
    const n = Number(value)
    if (!DECIMAL.test(value) || !accepts(n)) throw new InvalidArgumentError(`expected ${expected}, got "${value}"`)
    return n
  }
}

/** Parses a number >= 0 (`--holder-grace 1.5`). */
export const nonNegativeNumber = decimal(n => n >= 0, 'a number >= 0')

const SIZE_UNITS: Record<string, number> = {
  '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40
}

/** Parses a size in bytes (`--max-job-output 20GiB`): a number and an optional unit, B, kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (of 1024). */
export function byteSize (value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(value)
  const unit = SIZE_UNITS[m?.[2].toLowerCase() ?? 'none']
  const bytes = m == null || unit === undefined ? NaN : Math.floor(Number(m[1]) * unit)
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new InvalidArgumentError(`expected a size such as 20GiB, 500MB or 1048576 (bytes), got "${value}"`)
  return bytes
}

/** Parses `--rpc`: an http:// or https:// URL; empty (an unset JOBMESH_RPC_URL) means none. */
export function rpcUrl (value: string): string {
  if (value.trim() === '') return ''
  if (!isRpcUrl(value)) throw new InvalidArgumentError(`expected an http:// or https:// URL such as http://127.0.0.1:8545, got "${value}"`)
  return value
}

/** Checks an amount of ETH (`--stake 0.1`: decimal, at most 18 places), kept as text for the chain library to parse. */
export function ethAmount (value: string): string {
  const amount = value.trim()
  if (/^\d+\.\d{19,}$/.test(amount)) throw new InvalidArgumentError(`"${value}" has more than 18 decimals: 1 wei is 0.000000000000000001 ETH`)
  if (!/^\d+(\.\d{1,18})?$/.test(amount)) throw new InvalidArgumentError(`expected an amount of ETH such as 0.1 (a decimal number, no sign or exponent), got "${value}"`)
  return amount
}

/** Collects a repeatable multiaddr option (a comma- or space-separated list too), checking each one parses. */
function collectAddrs (value: string, previous: string[], example: string): string[] {
  const addrs = value.split(/[\s,]+/).filter(a => a !== '')
  for (const a of addrs) {
    try {
      multiaddr(a)
    } catch {
      throw new InvalidArgumentError(`"${a}" is not a multiaddr (example: ${example})`)
    }
  }
  return [...previous, ...addrs]
}

/** Collects `--bootstrap` addresses (JOBMESH_BOOTSTRAP too): each names its peer. */
export function collectMultiaddr (value: string, previous: string[] = []): string[] {
  return collectAddrs(value, previous, '/ip4/127.0.0.1/tcp/4001/p2p/12D3KooW...')
}

/** Collects `--listen` addresses: this node's own, with no peer id. */
export function collectListenAddr (value: string, previous: string[] = []): string[] {
  return collectAddrs(value, previous, '/ip4/0.0.0.0/tcp/4001')
}

/** Collects a repeatable `--model` (a job's `requirements.modelId`, such as `ipfs://<cid>`); none may be empty. */
export function collectModel (value: string, previous: string[] = []): string[] {
  const model = value.trim()
  if (model === '') throw new InvalidArgumentError('a model is a non-empty id, such as ipfs://<cid> of the weights a job names')
  return previous.includes(model) ? previous : [...previous, model]
}

/** The data dir from the flag, the environment, or the default. */
export function resolveDataDir (flag: string | undefined): string {
  return flag ?? process.env.JOBMESH_DATA_DIR ?? DEFAULT_DATA_DIR
}

/** What names the data dir in a message: the flag, the variable, or (neither given) the default. */
export function dataDirLabel (flag: string | undefined): string {
  return flag != null ? '--data-dir' : process.env.JOBMESH_DATA_DIR != null ? 'JOBMESH_DATA_DIR' : 'the data dir'
}

/**
 * Checks that `dir` is a directory or can be made one (it does not exist yet), before anything starts; `label` names
 * it in the message (`--data-dir`).
 *
 * @throws UsageError when it, or a folder above it, is a file, or it is on /proc or /sys
 */
export async function checkDirectory (dir: string, label: string): Promise<void> {
  const kernel = await kernelFilesystem(dir)
  if (kernel !== undefined) throw new UsageError(`${label} ${dir} is on ${kernel}, the kernel's own file system: not a place for data`)
  // the path itself, or (missing, or below a file) the first folder above it that exists
  for (let path = dir; ; path = dirname(path)) {
    const found = await stat(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined
      throw err
    })
    if (found?.isDirectory() === true) return
    if (found !== undefined) {
      const what = found.isFile() ? 'a file, not a directory' : 'not a directory'
      throw new UsageError(path === dir ? `${label} ${dir} is ${what}` : `${label} ${dir}: ${path} is ${what}`)
    }
    if (dirname(path) === path) return
  }
}

/** A commander parser of a whole number >= `min`, in digits. */
export function integerAtLeast (min: number): (value: string) => number {
  return decimal(n => Number.isSafeInteger(n) && n >= min, `a whole number >= ${min}`)
}

/** Parses a whole number >= 1 (`--replicas 3`). */
export const positiveInteger = integerAtLeast(1)

/** Parses `--commit-timeout`: a whole percent (the registry's range, 25 to 100, is checked against the chain's constants). */
export const commitTimeoutPercent = decimal(n => Number.isSafeInteger(n) && n >= 1, 'a whole percent from 25 to 100')

/** Parses a whole number >= 0 (`--vram 24`: the registry stores whole GB). */
export const wholeNumber = integerAtLeast(0)

/** Parses `jobmesh devnet --peers`: a whole number from {@link MIN_DEVNET_PEERS} to {@link MAX_DEVNET_PEERS}. */
export const devnetPeers = decimal(n => Number.isSafeInteger(n) && n >= MIN_DEVNET_PEERS && n <= MAX_DEVNET_PEERS,
  `a whole number from ${MIN_DEVNET_PEERS} to ${MAX_DEVNET_PEERS} (each peer is a process of its own on this machine)`)

/** Parses a block time: a number of seconds > 0 (`--block-time 2`, or 0.5: anvil mines at any positive interval). */
export const blockTime = decimal(n => n > 0, 'a number of seconds > 0 such as 1, 2 or 0.5')

/** Parses `--http 127.0.0.1:8080` (or a bare port, on loopback). */
export function httpAddress (value: string): HttpAddress {
  try {
    return parseHttpAddress(value)
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message)
  }
}
