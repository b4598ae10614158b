import { InsufficientFundsError } from '@jobmesh/contracts'
import { formatEther } from 'ethers'
import type { ChainClient } from '@jobmesh/contracts'

/** A registration that failed for want of ETH says so in one line, instead of the node's hex dump. */
function fundsError (address: string, balance: bigint, needed: bigint, cause?: Error): InsufficientFundsError {
  return new InsufficientFundsError(`wallet ${address} has ${formatEther(balance)} ETH, needs ${formatEther(needed)} stake + gas`, { cause })
}

/** @throws InsufficientFundsError when the wallet cannot pay the stake it must still add (registered or not) */
export async function checkStakeFunds (client: Pick<ChainClient, 'nodeInfo' | 'balance'>, address: string, stake: bigint,
  options: { signal?: AbortSignal }): Promise<void> {
  const node = await client.nodeInfo(address, options)
  // an exiting node is started as it is: nothing is added to its stake
  const toAdd = !node.registered ? stake : node.exiting ? 0n : stake > node.stake ? stake - node.stake : 0n
  if (toAdd === 0n) return
  const balance = await client.balance(address, options)
  if (balance <= toAdd) throw fundsError(address, balance, toAdd)
}

/** A registration that failed on a wallet left with less than the stake (gas spent on the way) says so. */
export async function explainFunds (client: Pick<ChainClient, 'balance'>, address: string, stake: bigint, err: Error): Promise<Error> {
  const balance = await client.balance(address).catch(() => undefined)
  return balance === undefined || balance > stake ? err : fundsError(address, balance, stake, err)
}
