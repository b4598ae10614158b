import type { ChainClient } from '@jobmesh/contracts'

/**
 * Records the incentive share of a node leaving (`jobmesh exit`, `jobmesh withdraw`): 0 once it is exiting, so it stops
 * taking a share of later fundings from the nodes still working (shares are recorded lazily: only a poke lowers one).
 * What it earned until now stays claimable (`jobmesh claim`). Returns a line for people (`warning` when the share could
 * not be recorded), or undefined when there is nothing to record (no incentive pool, the share recorded already).
 */
export async function recordLeavingShare (chain: ChainClient, address: string): Promise<{ line: string, warning: boolean } | undefined> {
  if (chain.contracts.incentivePool == null) return undefined
  try {
    const account = await chain.incentiveAccount(address)
    if (account.share === account.shareNow) return undefined
    await chain.pokeIncentive(address)
    const line = `its incentive share is recorded as ${account.shareNow.toFixed(2)}: it takes no share of later fundings; what it earned stays claimable with \`jobmesh claim\``
    return { line, warning: false }
  } catch (err) {
    const line = `warning: its incentive share could not be recorded (${(err as Error).name}: ${(err as Error).message}): run \`jobmesh claim\`, which records it`
    return { line, warning: true }
  }
}
