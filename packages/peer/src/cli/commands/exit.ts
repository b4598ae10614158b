import { ExitRefusedError } from '../errors.js'
import { addWalletOptions } from '../wallet-options.js'
import { withWalletChain } from '../wallet-chain.js'
import { chainDate } from '../chain-date.js'
import { recordLeavingShare } from '../incentive-share.js'
import { noNodeWords } from '../no-node.js'
import type { WalletOptions } from '../wallet-options.js'
import type { Command } from 'commander'

interface ExitOptions extends WalletOptions {
  json?: boolean
}

/** What `jobmesh exit --json` prints. */
export interface ExitReport {
  address: string
  tx: string
  /** Unix seconds (chain time) from which `jobmesh withdraw` returns the stake. */
  withdrawableAt: number
  stakeWei: string
}

/** `jobmesh exit`: the wallet's node leaves the network; its stake can be withdrawn after the exit cooldown. */
export function exitCommand (program: Command): void {
  const cmd = program.command('exit')
    .description('take the wallet\'s node out of every draw for good and start its exit cooldown, after which `jobmesh withdraw` returns its stake')
  addWalletOptions(cmd, 'JSON-RPC URL of the chain')
    .option('--json', 'print one JSON document: address, tx, withdrawableAt (unix seconds), stakeWei')
    .action(async (opts: ExitOptions) => {
      const { formatEther } = await import('ethers')
      await withWalletChain(opts, async (chain) => {
        const address = await chain.address()
        const info = await chain.nodeInfo(address)
        if (!info.registered) throw new ExitRefusedError(noNodeWords(address, info))
        if (info.exiting) throw new ExitRefusedError(`${address} asked to exit already: \`jobmesh withdraw\` returns its stake once the cooldown is over`)
        const { hash, withdrawableAt } = await chain.requestExit()
        const share = await recordLeavingShare(chain, address)
        if (opts.json === true) {
          if (share?.warning === true) process.stderr.write(`${share.line}\n`)
          const report: ExitReport = { address, tx: hash, withdrawableAt, stakeWei: String(info.stake) }
          process.stdout.write(`${JSON.stringify(report)}\n`)
          return
        }
        process.stdout.write(`exit requested for ${address} (tx ${hash}): the node is out of every draw and takes no more work\n`)
        process.stdout.write(`its stake of ${formatEther(info.stake)} ETH can be withdrawn with \`jobmesh withdraw\` ${await chainDate(chain, withdrawableAt)} or later\n`)
        if (info.busy) process.stdout.write('the node is busy with a task now: if that is a job\'s verification, the cooldown starts again when it ends\n')
        if (share !== undefined) (share.warning ? process.stderr : process.stdout).write(`${share.line}\n`)
        process.stdout.write('until then a running peer of this wallet still settles and claims what it earned\n')
      })
    })
}
