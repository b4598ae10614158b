import { addWalletOptions } from '../wallet-options.js'
import { withWalletChain } from '../wallet-chain.js'
import type { WalletOptions } from '../wallet-options.js'
import type { Command } from 'commander'

interface ClaimOptions extends WalletOptions {
  json?: boolean
}

/** What `jobmesh claim --json` prints: wei as decimal strings; `tx` null when nothing was claimed. */
export interface ClaimReport {
  address: string
  claimedWei: string
  tx: string | null
  /** The share recorded on chain after the command. */
  share: number
  /** The share by the node's scores now (recorded at its next poke or claim). */
  shareNow: number
}

/** `jobmesh claim`: records the wallet's current incentive share and pays it what it earned from the incentive pool. */
export function claimCommand (program: Command): void {
  const cmd = program.command('claim')
    .description('claim the node\'s incentive: its share of the incentive pool, by its QoS scores R, P and B (docs/contracts.md, Incentives)')
  addWalletOptions(cmd, 'JSON-RPC URL of the chain')
    .option('--json', 'print one JSON document: address, claimedWei, tx, share, shareNow')
    .action(async (opts: ClaimOptions) => {
      const { formatEther } = await import('ethers')
      await withWalletChain(opts, async (chain) => {
        const address = await chain.address()
        const before = await chain.incentiveAccount(address)
        const say = (line: string): void => { if (opts.json !== true) process.stdout.write(`${line}\n`) }
        let claim: { amountWei: bigint, hash: string } | undefined
        if (before.earnedWei === 0n) {
          // a wallet that is no node (e.g. the DApp's key) earns no share: say that, not only "nothing"
          const node = (await chain.nodeInfo(address)).registered ? '' : '; it is not a registered node: a node\'s wallet is the one its `jobmesh start` used'
          say(`nothing to claim for ${address} (recorded share ${before.share.toFixed(2)}, ${before.shareNow.toFixed(2)} now)${node}`)
          if (before.shareNow !== before.share) {
            await chain.pokeIncentive(address)
            say(`recorded share ${before.shareNow.toFixed(2)}: it earns from now on`)
          }
        } else {
          claim = await chain.claimIncentive()
        }
        const after = await chain.incentiveAccount(address)
        if (claim !== undefined) say(`claimed ${formatEther(claim.amountWei)} ETH for ${address} (tx ${claim.hash}); recorded share now ${after.share.toFixed(2)}`)
        if (opts.json === true) {
          const report: ClaimReport = { address, claimedWei: String(claim?.amountWei ?? 0n), tx: claim?.hash ?? null, share: after.share, shareNow: after.shareNow }
          process.stdout.write(`${JSON.stringify(report)}\n`)
        }
      })
    })
}
