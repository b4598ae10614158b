import { revertName } from '@jobmesh/contracts'
import { WithdrawRefusedError } from '../errors.js'
import { addWalletOptions } from '../wallet-options.js'
import { withWalletChain } from '../wallet-chain.js'
import { chainDate } from '../chain-date.js'
import { recordLeavingShare } from '../incentive-share.js'
import { settleOwnProbe } from '../own-probe.js'
import type { ChainClient, ChainRevertError } from '@jobmesh/contracts'
import type { WalletOptions } from '../wallet-options.js'
import type { Command } from 'commander'

interface WithdrawOptions extends WalletOptions {
  json?: boolean
}

/** What `jobmesh withdraw --json` prints. */
export interface WithdrawReport {
  address: string
  tx: string
  amountWei: string
}

/** Why the registry refused, for people. */
async function refusal (chain: ChainClient, address: string, err: ChainRevertError): Promise<string | undefined> {
  const { formatEther } = await import('ethers')
  switch (err.errorName) {
    case 'ExitNotRequested': return `${address} has not asked to exit: run \`jobmesh exit\` first; its stake can be withdrawn one exit cooldown later`
    case 'CooldownNotOver': return `the exit cooldown of ${address} ends ${await chainDate(chain, Number(err.errorArgs[0]))}: withdraw after it`
    case 'NodeIsBusy': return `${address} is a drawn verifier of a job: withdraw once that verification is settled`
    case 'StakeIsLocked': return `${formatEther(BigInt(err.errorArgs[0] as bigint))} ETH of ${address}'s stake is the bond of results under verification (its own submissions, or others' that pay it): withdraw once they are settled`
    case 'NotRegistered': return `${address} is not a registered node (its stake was withdrawn already, or it never registered)`
    default: return undefined
  }
}

/**
 * The withdrawal; a node held busy by an open probe task (assigned before it asked to exit) has it answered, or closed
 * once expired, and withdraws then (the operator was told to wait for a verification there was none of).
 */
async function withdrawPastProbe (chain: ChainClient, address: string, json: boolean): Promise<Awaited<ReturnType<ChainClient['withdrawStake']>>> {
  try {
    return await chain.withdrawStake()
  } catch (err) {
    if (revertName(err) !== 'NodeIsBusy') throw err
    const probe = await settleOwnProbe(chain, address)
    if (probe === undefined || probe.outcome === 'waiting') {
      if (probe !== undefined) throw new WithdrawRefusedError(probeWaitText(address, probe.expiredAfter), 'NodeIsBusy', { cause: err })
      throw err
    }
    if (!json) process.stdout.write(`${probe.outcome} the node's open probe task (it held the stake)\n`)
    return await chain.withdrawStake()
  }
}

function probeWaitText (address: string, expiredAfter: number): string {
  return `${address} has a probe task open that expired after block ${expiredAfter}: the registry's probe scan (run by the network's peers) ` +
    'closes it; withdraw after that'
}

/** `jobmesh withdraw`: after `jobmesh exit` and its cooldown, pays the node's stake back and unregisters it. */
export function withdrawCommand (program: Command): void {
  const cmd = program.command('withdraw')
    .description('after `jobmesh exit` and its cooldown: pay the node\'s whole stake back to its wallet and unregister the node')
  addWalletOptions(cmd, 'JSON-RPC URL of the chain')
    .option('--json', 'print one JSON document: address, tx, amountWei')
    .action(async (opts: WithdrawOptions) => {
      const { formatEther } = await import('ethers')
      await withWalletChain(opts, async (chain) => {
        const address = await chain.address()
        let done: Awaited<ReturnType<ChainClient['withdrawStake']>>
        try {
          done = await withdrawPastProbe(chain, address, opts.json === true)
        } catch (err) {
          const why = revertName(err) == null ? undefined : await refusal(chain, address, err as ChainRevertError)
          if (why == null) throw err
          throw new WithdrawRefusedError(why, revertName(err) as string, { cause: err })
        }
        // a node that exited without `jobmesh exit` (a call of its own) may still hold a recorded share
        const share = await recordLeavingShare(chain, address)
        if (opts.json === true) {
          if (share?.warning === true) process.stderr.write(`${share.line}\n`)
          const report: WithdrawReport = { address, tx: done.hash, amountWei: String(done.amountWei) }
          process.stdout.write(`${JSON.stringify(report)}\n`)
          return
        }
        process.stdout.write(`withdrew ${formatEther(done.amountWei)} ETH to ${address} (tx ${done.hash}); the node is unregistered\n`)
        if (share !== undefined) (share.warning ? process.stderr : process.stdout).write(`${share.line}\n`)
      })
    })
}
