import { join } from 'node:path'
import { CONTROL_SOCKET } from '../constants.js'
import { fetchStatus } from '../control.js'
import { terminalSafe } from '../terminal-text.js'
import { checkDirectory, dataDirLabel, resolveDataDir } from '../options.js'
import type { PeerStatus } from '../../peer.js'
import type { Command } from 'commander'

export interface StatusOptions {
  dataDir?: string
  json?: boolean
}

/** `jobmesh status`: asks the peer running on the data dir for its peers, known jobs and own work. */
export function statusCommand (program: Command): void {
  program.command('status')
    .description('show the running peer\'s connections, wallet (stake, earnings, QoS scores B, R, P), the jobs it knows and its own work')
    .option('-d, --data-dir <dir>', 'data dir of the running peer (env JOBMESH_DATA_DIR, default ~/.jobmesh)')
    .option('--json', 'print JSON')
    .action(async (opts: StatusOptions) => {
      const dataDir = resolveDataDir(opts.dataDir)
      // a file there is a mistyped path, not a stopped peer
      await checkDirectory(dataDir, dataDirLabel(opts.dataDir))
      // a forgotten --data-dir asks the default one: the refusal names the dir it asked and how to name another
      const where = `with data dir ${dataDir} (a running peer's is the --data-dir it was started with; default ~/.jobmesh)`
      const status = await fetchStatus(join(dataDir, CONTROL_SOCKET), undefined, where) as PeerStatus
      const { formatStatus } = await import('../status-view.js')
      process.stdout.write(opts.json === true ? JSON.stringify(status, null, 2) + '\n' : terminalSafe(formatStatus(status), { lines: true }))
    })
}
