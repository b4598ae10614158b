import { createJobClient } from '../client.js'
import { InvalidConfigError } from '../errors.js'
import { collect, readDeployment, readKeyFile } from './options.js'
import type { JobClient } from '../client.js'
import type { Command } from 'commander'

/** Flags every command that talks to the chain and the network shares. */
export interface ConnectFlags {
  rpc: string
  keyFile?: string
  deployment: string
  bootstrap?: string[]
  dataDir?: string
}

export const DEFAULT_CLI_RPC_URL = 'http://127.0.0.1:8545'

/** Adds the connection flags to a command. */
export function withConnectFlags (cmd: Command): Command {
  return cmd
    .option('--rpc <url>', 'JSON-RPC endpoint (env JOBMESH_RPC_URL)', process.env.JOBMESH_RPC_URL ?? DEFAULT_CLI_RPC_URL)
    .option('--key-file <file>', 'file holding the 0x private key that pays (env JOBMESH_PRIVATE_KEY instead)')
    .requiredOption('--deployment <file>', 'deployment JSON of the jobmesh contracts')
    .option('--bootstrap <multiaddr>', 'jobmesh peer to connect to (repeatable)', collect)
    .option('--data-dir <dir>', 'where the client node keeps its key, blocks and CRDT state (default: in memory)')
}

/** A job client from the connection flags. */
export async function clientFrom (flags: ConnectFlags): Promise<JobClient> {
  let key: string
  if (flags.keyFile !== undefined) {
    key = await readKeyFile(flags.keyFile)
  } else if (process.env.JOBMESH_PRIVATE_KEY !== undefined && process.env.JOBMESH_PRIVATE_KEY !== '') {
    key = process.env.JOBMESH_PRIVATE_KEY
  } else {
    throw new InvalidConfigError('a private key is required: --key-file <file> or JOBMESH_PRIVATE_KEY')
  }
  return createJobClient({
    rpcUrl: flags.rpc,
    signer: key,
    deployment: await readDeployment(flags.deployment),
    bootstrap: flags.bootstrap ?? [],
    dataDir: flags.dataDir
  })
}
