import { badPrivateKeyMessage, privateKeyHex } from '@jobmesh/contracts'
import { Option } from 'commander'
import { InvalidConfigError } from '../errors.js'
import { bootstrapList, readDeployment, readKeyFile, rpcUrl } from './options.js'
import type { JobClient, JobClientInit } from '../client.js'
import type { EscrowClient } from '../escrow-client.js'
import type { Command } from 'commander'
import type { Signer } from 'ethers'

/** Flags every command that talks to the chain and the network shares. */
export interface ConnectFlags {
  rpc: string
  keyFile?: string
  privateKey?: string
  deployment: string
  bootstrap?: string[]
  dataDir?: string
  json?: boolean
}

export const DEFAULT_CLI_RPC_URL = 'http://127.0.0.1:8545'

/**
 * What a command does with the chain: `pays` (submit, refund: a key is required) or `reads` (status, wait, results,
 * describe: without a key it signs with nobody's, so anyone with a jobId can follow the job).
 */
export type ChainAccess = 'pays' | 'reads'

/**
 * Adds the connection flags to a command. Each one also reads the variable `jobmesh devnet` prints
 * (`JOBMESH_RPC_URL`, `JOBMESH_DEPLOYMENT`, `JOBMESH_BOOTSTRAP`, `JOBMESH_PRIVATE_KEY`); a flag wins over its variable.
 */
export function withConnectFlags (cmd: Command, access: ChainAccess | 'identifies' = 'pays', startsNode = true): Command {
  const keyHelp = {
    pays: 'file holding the 0x private key that pays (or JOBMESH_PRIVATE_KEY)',
    identifies: 'file holding the 0x private key of the wallet (or JOBMESH_PRIVATE_KEY); required',
    reads: 'file holding a 0x private key (or JOBMESH_PRIVATE_KEY); not needed: this command only reads'
  }[access]
  // a command without a node still checks --bootstrap, but does not offer what it does not use
  const nodeOption = (option: Option): Option => startsNode ? option : option.hideHelp()
  return cmd
    .addOption(new Option('--rpc <url>', 'JSON-RPC endpoint (http:// or https://)').env('JOBMESH_RPC_URL').default(DEFAULT_CLI_RPC_URL)
      .argParser(rpcUrl))
    .option('--key-file <file>', keyHelp)
    .addOption(new Option('--private-key <hex>', 'the 0x private key; prefer the variable or --key-file').env('JOBMESH_PRIVATE_KEY').hideHelp())
    .addOption(new Option('--deployment <file>', 'deployment JSON of the jobmesh contracts').env('JOBMESH_DEPLOYMENT').makeOptionMandatory())
    .addOption(nodeOption(new Option('--bootstrap <multiaddr>', 'jobmesh peer to connect to; repeatable (variable: comma-separated)')
      .env('JOBMESH_BOOTSTRAP').argParser(bootstrapList)))
    .addOption(nodeOption(new Option('--data-dir <dir>', 'where the client node keeps its key, blocks and CRDT state (default: in memory)')))
    .option('--json', 'print one JSON document on stdout instead of text')
}

/** The key that pays, from `--key-file` or JOBMESH_PRIVATE_KEY. */
async function signerKey (flags: ConnectFlags): Promise<string> {
  if (flags.keyFile !== undefined) return await readKeyFile(flags.keyFile)
  if (flags.privateKey !== undefined && flags.privateKey !== '') {
    const hex = privateKeyHex(flags.privateKey)
    if (hex === undefined) throw new InvalidConfigError(badPrivateKeyMessage())
    return hex
  }
  throw new InvalidConfigError('a private key is required: --key-file <file> or JOBMESH_PRIVATE_KEY (jobmesh devnet prints one)')
}

/** `true` when a key is given by `--key-file` or JOBMESH_PRIVATE_KEY. */
function hasKey (flags: ConnectFlags): boolean {
  return flags.keyFile !== undefined || (flags.privateKey !== undefined && flags.privateKey !== '')
}

/**
 * The signer of a command: the key, which a command that pays requires; a command that only reads without one gets
 * an ethers VoidSigner of the zero address, which has an address to read with and signs nothing.
 */
async function commandSigner (flags: ConnectFlags, access: ChainAccess): Promise<string | Signer> {
  if (access === 'pays' || hasKey(flags)) return await signerKey(flags)
  const { VoidSigner, ZeroAddress } = await import('ethers')
  return new VoidSigner(ZeroAddress)
}

/**
 * A job client from the connection flags. `warn` gets one line when none of the bootstrap peers answered (the
 * client starts anyway: the chain works, the network does not).
 */
export async function clientFrom (flags: ConnectFlags, extra: Partial<JobClientInit> = {}, warn?: (line: string) => void,
  access: ChainAccess = 'pays'): Promise<JobClient> {
  const key = await commandSigner(flags, access)
  const bootstrap = flags.bootstrap ?? []
  // the client (libp2p, helia, ethers) is loaded by a command that connects, not by `--help` or a bad flag
  const { createJobClient } = await import('../client.js')
  const client = await createJobClient({
    rpcUrl: flags.rpc,
    signer: key,
    deployment: await readDeployment(flags.deployment),
    bootstrap,
    dataDir: flags.dataDir,
    ...extra
  })
  if (bootstrap.length > 0 && client.node.libp2p.getPeers().length === 0) {
    warn?.(`warning: no bootstrap peer answered (${bootstrap.join(', ')}): is the network running? jobmesh devnet prints JOBMESH_BOOTSTRAP`)
  }
  return client
}

/**
 * An escrow client from the connection flags. No node is started, so `--bootstrap` and `--data-dir` are not used; a
 * `--bootstrap` that is no peer's multiaddr is still refused (InvalidMultiaddrError), as by the commands that connect.
 */
export async function escrowClientFrom (flags: ConnectFlags, access: ChainAccess = 'pays'): Promise<EscrowClient> {
  const key = await commandSigner(flags, access)
  const bootstrap = flags.bootstrap ?? []
  if (bootstrap.length > 0) (await import('@jobmesh/peer/node')).parseBootstrap(bootstrap)
  const { createEscrowClient } = await import('../escrow-client.js')
  return await createEscrowClient({ rpcUrl: flags.rpc, signer: key, deployment: await readDeployment(flags.deployment) })
}
