import { revertName } from '@jobmesh/contracts'
import { addWalletOptions } from '../wallet-options.js'
import { withWalletChain } from '../wallet-chain.js'
import { noNodeWords } from '../no-node.js'
import type { ChainClient } from '@jobmesh/contracts'
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
  /** Escrow credits withdrawn (verifier shares, draw bounties); `creditsTx` null when there were none. */
  creditsWei: string
  creditsTx: string | null
}

/** `jobmesh claim`: records the wallet's current incentive share and pays it what it earned from the incentive pool. */
export function claimCommand (program: Command): void {
  const cmd = program.command('claim')
    .description('claim what the wallet is owed: its node\'s incentive (its share of the incentive pool, by its QoS scores R, P and B) and its escrow credits (verifier shares, draw bounties), also after the node withdrew')
  addWalletOptions(cmd, 'JSON-RPC URL of the chain')
    .option('--json', 'print one JSON document: address, claimedWei, tx, share, shareNow, creditsWei, creditsTx')
    .action(async (opts: ClaimOptions) => {
      const { formatEther } = await import('ethers')
      await withWalletChain(opts, async (chain) => {
        const address = await chain.address()
        const before = await chain.incentiveAccount(address)
        const say = (line: string): void => { if (opts.json !== true) process.stdout.write(`${line}\n`) }
        let claim: { amountWei: bigint, hash: string } | undefined
        const credits = await withdrawCredits(chain, address)
        if (credits !== undefined) say(`withdrew ${formatEther(credits.amountWei)} ETH of escrow credits (verifier shares, draw bounties) to ${address} (tx ${credits.hash})`)
        if (before.earnedWei === 0n) {
          // a wallet that is no node (e.g. the DApp's key) earns no share: say that, not only "nothing"
          const info = await chain.nodeInfo(address)
          const node = info.registered ? '' : `; ${noNodeWords('it', info)}`
          say(`${credits === undefined ? 'nothing' : 'no incentive'} to claim for ${address} (recorded share ${before.share.toFixed(2)}, ${before.shareNow.toFixed(2)} now)${node}`)
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
          const report: ClaimReport = {
            address,
            claimedWei: String(claim?.amountWei ?? 0n),
            tx: claim?.hash ?? null,
            share: after.share,
            shareNow: after.shareNow,
            creditsWei: String(credits?.amountWei ?? 0n),
            creditsTx: credits?.hash ?? null
          }
          process.stdout.write(`${JSON.stringify(report)}\n`)
        }
      })
    })
}

/**
 * The wallet's escrow credits, withdrawn (a running peer withdraws them after its claims; an operator whose node
 * withdrew has no peer to do it). Undefined when there are none, or a running peer took them first.
 */
async function withdrawCredits (chain: ChainClient, address: string): Promise<{ amountWei: bigint, hash: string } | undefined> {
  const amountWei = await chain.credits(address)
  if (amountWei === 0n) return undefined
  try {
    const tx = await chain.withdrawCredit()
    return { amountWei, hash: tx.hash }
  } catch (err) {
    if (revertName(err) === 'NothingToWithdraw') return undefined
    throw err
  }
}
