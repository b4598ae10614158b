import { addWalletOptions, requireWallet } from '../wallet-options.js'
import type { WalletOptions } from '../wallet-options.js'
import type { Command } from 'commander'

/** `jobmesh claim`: records the wallet's current incentive share and pays it what it earned from the incentive pool. */
export function claimCommand (program: Command): void {
  const cmd = program.command('claim')
    .description('claim the node\'s incentive: its share of the incentive pool, by its QoS scores R, P and B (docs/contracts.md, Incentives)')
  addWalletOptions(cmd, 'JSON-RPC URL of the chain')
    .action(async (opts: WalletOptions) => {
      const wallet = await requireWallet(opts)
      const { Wallet, formatEther } = await import('ethers')
      const { createChainClient } = await import('@jobmesh/contracts')
      const chain = createChainClient({ rpcUrl: wallet.rpcUrl, signer: new Wallet(wallet.privateKey), deployment: wallet.deployment })
      try {
        const address = await chain.address()
        const before = await chain.incentiveAccount(address)
        if (before.earnedWei === 0n) {
          process.stdout.write(`nothing to claim for ${address} (recorded share ${before.share.toFixed(2)}, ${before.shareNow.toFixed(2)} now)\n`)
          if (before.shareNow !== before.share) {
            await chain.pokeIncentive(address)
            process.stdout.write(`recorded share ${before.shareNow.toFixed(2)}: it earns from now on\n`)
          }
          return
        }
        const claim = await chain.claimIncentive()
        const after = await chain.incentiveAccount(address)
        process.stdout.write(`claimed ${formatEther(claim.amountWei)} ETH for ${address} (tx ${claim.hash}); recorded share now ${after.share.toFixed(2)}\n`)
      } finally {
        chain.provider.destroy()
      }
    })
}
