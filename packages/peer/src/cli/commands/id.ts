import { mkdir } from 'node:fs/promises'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { checkDirectory, dataDirLabel, resolveDataDir } from '../options.js'
import type { Command } from 'commander'

export interface IdOptions {
  dataDir?: string
  json?: boolean
}

/** `jobmesh id`: prints the PeerId kept in the data dir (creating the identity on first use). */
export function idCommand (program: Command): void {
  program.command('id')
    .description('print this node\'s PeerId (creates the identity in the data dir on first use)')
    .option('-d, --data-dir <dir>', 'data dir (env JOBMESH_DATA_DIR, default ~/.jobmesh)')
    .option('--json', 'print JSON')
    .action(async (opts: IdOptions) => {
      const dataDir = resolveDataDir(opts.dataDir)
      await checkDirectory(dataDir, dataDirLabel(opts.dataDir))
      await mkdir(dataDir, { recursive: true })
      // the node folder (libp2p, helia) is loaded by this command, not by every other command's `--help`
      const { loadOrCreateIdentity } = await import('../../node/index.js')
      const key = await loadOrCreateIdentity(dataDir)
      const peerId = peerIdFromPrivateKey(key).toString()
      process.stdout.write(opts.json === true ? JSON.stringify({ peerId, dataDir }) + '\n' : `${peerId}\n`)
    })
}
