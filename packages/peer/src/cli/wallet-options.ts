import { readFile } from 'node:fs/promises'
import { Option } from 'commander'
import { UsageError } from './errors.js'
import { rpcUrl } from './options.js'
import { badPrivateKeyMessage, privateKeyHex } from '@jobmesh/contracts'
import { fileProblem } from './file-problem.js'
import type { Deployment } from '@jobmesh/contracts'
import type { Command } from 'commander'

/** The chain options of `jobmesh start` and `jobmesh claim`. */
export interface WalletOptions {
  rpc?: string
  keyFile?: string
  privateKey?: string
  deployment?: string
}

/** A wallet on a deployment, read from {@link WalletOptions}. */
export interface Wallet {
  rpcUrl: string
  /** 0x-prefixed 32-byte hex. */
  privateKey: string
  deployment: Deployment
}

/** Adds --rpc, --key-file, --private-key (hidden) and --deployment, each with its environment variable. */
export function addWalletOptions (cmd: Command, rpcHelp: string): Command {
  return cmd
    .addOption(new Option('--rpc <url>', rpcHelp).env('JOBMESH_RPC_URL').argParser(rpcUrl))
    .option('--key-file <file>', 'file holding the wallet private key (hex) (or JOBMESH_PRIVATE_KEY)')
    .addOption(new Option('--private-key <hex>', 'the wallet key; prefer the variable or --key-file').env('JOBMESH_PRIVATE_KEY').hideHelp())
    .addOption(new Option('--deployment <file>', 'deployments/<chainId>.json with the contract addresses').env('JOBMESH_DEPLOYMENT'))
}

/** The wallet the options name; undefined without --rpc (and none of the others). @throws UsageError */
export async function readWallet (opts: WalletOptions): Promise<Wallet | undefined> {
  const rpcUrl = given(opts.rpc)
  if (rpcUrl == null) {
    // an empty variable (`JOBMESH_DEPLOYMENT=`) is one left unset, not one given
    const named = [
      ...(given(opts.keyFile) != null ? ['--key-file'] : []),
      ...(given(opts.deployment) != null ? [opts.deployment === process.env.JOBMESH_DEPLOYMENT ? 'JOBMESH_DEPLOYMENT' : '--deployment'] : [])
    ]
    if (named.length > 0) throw new UsageError(`${named.join(' and ')} ${named.length === 1 ? 'needs' : 'need'} --rpc (or JOBMESH_RPC_URL)`)
    return undefined
  }
  if (opts.deployment == null || opts.deployment === '') {
    throw new UsageError('--rpc needs --deployment <file> (deployments/<chainId>.json)')
  }
  const privateKey = privateKeyHex(opts.keyFile != null ? await readText(opts.keyFile, 'the key file') : opts.privateKey ?? '')
  if (privateKey == null) throw new UsageError(keyProblem(opts))
  const { parseDeployment } = await import('@jobmesh/contracts')
  let deployment: Deployment
  try {
    deployment = parseDeployment(await readText(opts.deployment, 'the deployment'))
  } catch (err) {
    if ((err as Error).name === 'UsageError') throw err
    throw new UsageError(`${opts.deployment} is not a jobmesh deployment file: ${(err as Error).message}`)
  }
  return { rpcUrl, privateKey, deployment }
}

/** The wallet the options name. @throws UsageError when --rpc is missing */
export async function requireWallet (opts: WalletOptions): Promise<Wallet> {
  const wallet = await readWallet(opts)
  if (wallet == null) throw new UsageError('--rpc <url> (or JOBMESH_RPC_URL) is needed, with --deployment and a wallet key')
  return wallet
}

/** Why the options give no usable key: a key file or a key that is not one, or none at all. */
function keyProblem (opts: WalletOptions): string {
  if (opts.keyFile != null || given(opts.privateKey) != null) return badPrivateKeyMessage(opts.keyFile)
  return 'a wallet key is needed: --key-file <file> with a 32-byte hex key, or JOBMESH_PRIVATE_KEY'
}

function given (value: string | undefined): string | undefined {
  return value === '' ? undefined : value
}

async function readText (file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8')
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${file}: ${fileProblem(err)}`)
  }
}
