import { constants, existsSync, rmdirSync } from 'node:fs'
import { access, mkdir, readFile, stat } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { InvalidArgumentError } from 'commander'
import { badPrivateKeyMessage, isRpcUrl, privateKeyHex } from '@jobmesh/contracts'
import { fileProblem } from '@jobmesh/peer/file-problem'
import { kernelFilesystem } from '@jobmesh/peer/kernel-fs'
import { parseEther } from 'ethers'
import { localSize } from '../spec.js'
import { InvalidConfigError } from '../errors.js'
import { checkJobId } from '../job-id.js'
import { verificationIssue } from '../verification.js'
import type { DeploymentRef } from '../chain/connection.js'
import type { VerificationLevel } from '../verification.js'

/** Commander parser of a positive integer flag. */
export function positiveInt (value: string): number {
  const n = Number(value)
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive integer')
  return n
}

/** Commander parser of a positive number of seconds, fractions allowed (`0.5`), to whole milliseconds (at least 1). */
export function secondsToMs (value: string): number {
  const s = Number(value)
  if (!/^([0-9]+(\.[0-9]*)?|\.[0-9]+)$/.test(value) || !Number.isFinite(s) || s <= 0 || s * 1000 > 2 ** 31 - 1) {
    throw new InvalidArgumentError('expected a positive number of seconds, e.g. 2 or 0.5')
  }
  // a poll every millisecond would flood the RPC endpoint (a public one rate-limits or bans for less)
  if (s < MIN_POLL_SECONDS) throw new InvalidArgumentError(`expected at least ${MIN_POLL_SECONDS} s between two reads, e.g. 2 or 0.5`)
  return Math.round(s * 1000)
}

/** The shortest `--poll` (seconds). */
export const MIN_POLL_SECONDS = 0.1

/** Commander parser of a non-negative integer flag. */
export function nonNegativeInt (value: string): number {
  const n = Number(value)
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('expected a non-negative integer')
  return n
}

/** Commander parser of an amount in ether (decimal), to wei. */
export function ether (value: string): bigint {
  // below a wei: not a negative number, one too fine to pay (a QA pass read "expected a positive amount")
  if (/^[0-9]*\.[0-9]{19,}$/.test(value)) throw new InvalidArgumentError('expected at most 18 decimals (1 wei is 0.000000000000000001 ETH)')
  try {
    const wei = parseEther(value)
    if (wei <= 0n) throw new Error('not positive')
    return wei
  } catch {
    throw new InvalidArgumentError('expected a positive amount in ether, e.g. 0.01')
  }
}

/**
 * Commander parser of `--verification`: what the SDK's `verification` takes, `full` or a fraction in (0, 1] of each
 * MacroJob's MicroJobs (`0.25`, `.5`, `1`). A bad value is a usage error (exit 2), before anything is uploaded or paid.
 */
export function verificationLevel (value: string): VerificationLevel {
  if (value === 'full') return 'full'
  const n = Number(value)
  if (!/^([0-9]+(\.[0-9]*)?|\.[0-9]+)$/.test(value) || verificationIssue(n, undefined) !== undefined) {
    throw new InvalidArgumentError('expected full (every MicroJob) or a fraction of each MacroJob\'s MicroJobs in (0, 1], e.g. 0.25')
  }
  return n
}

/** Commander parser of a 32-byte hex job id. */
export function jobIdArg (value: string): string {
  try {
    return checkJobId(value)
  } catch {
    throw new InvalidArgumentError('expected a job id: 0x and 64 hex digits')
  }
}

/** Collects a repeatable multiaddr flag; a comma- or space-separated list (the JOBMESH_BOOTSTRAP variable) too. */
export function bootstrapList (value: string, previous: string[] = []): string[] {
  const addrs = value.split(/[\s,]+/).filter(a => a !== '')
  for (const a of addrs) {
    if (!a.startsWith('/')) throw new InvalidArgumentError(`expected a multiaddr such as /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW..., got ${a}`)
  }
  return [...previous, ...addrs]
}

/** Commander parser of the JSON-RPC endpoint: an http:// or https:// URL (the client speaks JSON-RPC over HTTP). */
export function rpcUrl (value: string): string {
  if (!isRpcUrl(value)) throw new InvalidArgumentError(`expected an http:// or https:// URL such as http://127.0.0.1:8545, got "${value}"`)
  return value
}

/** Reads a 0x private key from a file (whitespace trimmed). */
export async function readKeyFile (path: string): Promise<string> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw new InvalidConfigError(`cannot read the key file ${path}: ${fileProblem(err)}`, { cause: err })
  }
  const key = privateKeyHex(text)
  if (key === undefined) throw new InvalidConfigError(badPrivateKeyMessage(path))
  return key
}

/** Reads a deployment JSON file (as `@jobmesh/contracts` writes it). */
export async function readDeployment (path: string): Promise<DeploymentRef> {
  // `JOBMESH_DEPLOYMENT=` passes commander's mandatory check with an empty name
  if (path === '') throw new InvalidConfigError('--deployment <file> is required (or JOBMESH_DEPLOYMENT; jobmesh devnet prints it)')
  let text: string
  let parsed: unknown
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw new InvalidConfigError(`cannot read the deployment ${path}: ${fileProblem(err)}`, { cause: err })
  }
  try {
    parsed = JSON.parse(text)
  } catch (err) {
    throw new InvalidConfigError(`cannot read the deployment ${path}: not JSON (${(err as Error).message})`, { cause: err })
  }
  const d = parsed as Partial<DeploymentRef>
  if (typeof d?.jobEscrow !== 'string') throw new InvalidConfigError(`the deployment ${path} has no jobEscrow address`)
  // present, they must be what they say (a chainId "abc" was dropped in silence, and the chain not checked)
  if (d.chainId !== undefined && !(Number.isSafeInteger(d.chainId) && d.chainId > 0)) {
    throw new InvalidConfigError(`the deployment ${path} has chainId ${JSON.stringify(d.chainId)}: expected a positive whole number`)
  }
  if (d.blockNumber !== undefined && !(Number.isSafeInteger(d.blockNumber) && d.blockNumber >= 0)) {
    throw new InvalidConfigError(`the deployment ${path} has blockNumber ${JSON.stringify(d.blockNumber)}: expected a whole number`)
  }
  return {
    jobEscrow: d.jobEscrow,
    ...(typeof d.chainId === 'number' ? { chainId: d.chainId } : {}),
    ...(typeof d.blockNumber === 'number' ? { blockNumber: d.blockNumber } : {})
  }
}

/** Why a folder could not be made, from the error's code. */
function mkdirProblem (err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'EEXIST': return 'it is a file, not a directory'
    case 'ENOTDIR': return 'a folder on its path is a file'
    case 'EACCES': case 'EPERM': case 'EROFS': return 'no permission to make it'
    case 'ENAMETOOLONG': return 'its name is too long'
    default: return err.message
  }
}

/**
 * An output directory ready to write. `existed` is the deepest folder of `path` (itself included) that was there
 * before: the folders below it are this command's.
 */
export interface OutputDir {
  path: string
  existed?: string
}

/**
 * The folder outputs are written to, made (`mkdir -p`) and checked to be writable by this process before anything is
 * paid or downloaded: a bad `--out` found after a paid job would leave its outputs unwritten.
 *
 * @throws InvalidConfigError (exit 2)
 */
export async function prepareOutputDir (path: string, flag = '--out', into: OutputDir = { path: '' }): Promise<OutputDir> {
  // resolve('') is the current directory: an empty value is a mistake, not a choice of it
  if (path.trim() === '') throw new InvalidConfigError(`${flag} is empty: name a directory for the outputs`)
  const dir = resolve(path)
  const kernel = await kernelFilesystem(dir)
  if (kernel !== undefined) throw new InvalidConfigError(`${flag} ${path}: it is on ${kernel}, the kernel's own file system: not a place for outputs`)
  // known before the folders are made, so that a Ctrl-C at any moment from here takes back what was made (`into`)
  into.existed = deepestExisting(dir)
  into.path = dir
  try {
    await mkdir(dir, { recursive: true })
  } catch (err) {
    throw new InvalidConfigError(`${flag} ${path}: ${mkdirProblem(err as NodeJS.ErrnoException)}`, { cause: err })
  }
  if (!(await stat(dir)).isDirectory()) throw new InvalidConfigError(`${flag} ${path}: it is a file, not a directory`)
  try {
    await access(dir, constants.W_OK)
  } catch (err) {
    throw new InvalidConfigError(`${flag} ${path}: this process may not write there`, { cause: err })
  }
  return into
}

/**
 * Removes the folders {@link prepareOutputDir} made for a command that then failed or was interrupted, from the
 * deepest up, while they are empty: a command that wrote nothing leaves nothing; a folder with any file in it stays.
 * Synchronous: a Ctrl-C exits at once after it (a few `rmdir`s).
 */
export function discardIfEmpty (out: OutputDir): void {
  for (const dir of madeFolders(out)) {
    try {
      rmdirSync(dir)
    } catch {
      return
    }
  }
}

/** The folders {@link prepareOutputDir} made, deepest first. */
function madeFolders (out: OutputDir): string[] {
  const made: string[] = []
  if (out.existed === undefined || out.path === '') return made
  for (let dir = out.path; dir !== out.existed && dirname(dir) !== dir; dir = dirname(dir)) made.push(dir)
  return made
}

/** The deepest of `dir` and its parents that exists now. */
function deepestExisting (dir: string): string {
  let at = dir
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at)
  return at
}

/**
 * Refuses a local file given for an input flag (`--code`, `--data`, `--model`) that cannot be read, before anything
 * is uploaded or paid (the SDK's own check, `localSize`, as a usage error); a URI is left to the peers.
 * @throws InvalidConfigError
 */
export async function checkInputFile (flag: string, value: string): Promise<void> {
  try {
    await localSize(value, flag)
  } catch (err) {
    throw new InvalidConfigError((err as Error).message, { cause: err })
  }
}
