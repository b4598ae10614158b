import { InsufficientFundsError } from '@jobmesh/contracts'
import { formatEther, isError } from 'ethers'
import { ethText } from './observe/index.js'
import type { ChainClient } from '@jobmesh/contracts'

// Gas a start may spend before it runs, at most: the seed commitment, the registration (~730 000 with its PeerId proof,
// docs/contracts.md, Gas) or a stake top-up, the incentive poke and a timeout setting. The node checks a transaction's
// gas limit x its max fee per gas against the balance before it takes it.
const START_GAS = 1_100_000n
const TOP_UP_GAS = 400_000n
// and what its first duties need after it: a verification round (seed, commit, reveal) and a claim. A wallet holding
// the stake and the start's gas alone registered, was drawn, and could not send its reveal (penalised)
const DUTY_GAS = 1_500_000n

/** A start that cannot pay for want of ETH says so in one line, instead of the node's hex dump. */
function fundsError (address: string, balance: bigint, stake: bigint, gasWei?: bigint, cause?: Error): InsufficientFundsError {
  const gas = gasWei === undefined ? 'gas' : `about ${ethText(gasWei)} ETH of gas at the chain's fee now (its start and first duties)`
  return new InsufficientFundsError(`wallet ${address} has ${formatEther(balance)} ETH, needs ${formatEther(stake)} stake + ${gas}`, { cause })
}

/** What a transaction may cost per unit of gas now: the max fee per gas (EIP-1559), else the gas price. */
async function feePerGas (client: Pick<ChainClient, 'provider'>): Promise<bigint> {
  const fee = await client.provider.getFeeData()
  return fee.maxFeePerGas ?? fee.gasPrice ?? 0n
}

/**
 * @throws InsufficientFundsError when the wallet cannot pay the stake it must still add (registered or not) and the
 * gas of the start's transactions, before any of them is sent
 */
export async function checkStakeFunds (client: Pick<ChainClient, 'nodeInfo' | 'balance' | 'provider'>, address: string, stake: bigint,
  options: { signal?: AbortSignal }): Promise<void> {
  const node = await client.nodeInfo(address, options)
  // an exiting node is started as it is: nothing is added to its stake
  const toAdd = !node.registered ? stake : node.exiting ? 0n : stake > node.stake ? stake - node.stake : 0n
  if (toAdd === 0n) return
  const [balance, perGas] = await Promise.all([client.balance(address, options), feePerGas(client)])
  const gasWei = ((node.registered ? TOP_UP_GAS : START_GAS) + DUTY_GAS) * perGas
  if (balance < toAdd + gasWei || balance <= toAdd) throw fundsError(address, balance, toAdd, gasWei)
}

/**
 * A registration that failed on a wallet left short of the stake (gas spent on the way), or that the node refused for
 * want of funds (a gas price that rose since the check), says so.
 */
export async function explainFunds (client: Pick<ChainClient, 'balance'>, address: string, stake: bigint, err: Error): Promise<Error> {
  const balance = await client.balance(address).catch(() => undefined)
  if (balance === undefined || (balance > stake && !refusedForFunds(err))) return err
  return fundsError(address, balance, stake, undefined, err)
}

/** Whether the node refused a transaction for want of funds (ethers' `INSUFFICIENT_FUNDS`, under the chain error). */
function refusedForFunds (err: unknown): boolean {
  let e = err
  for (let depth = 0; e != null && depth < 8; depth++, e = (e as { cause?: unknown }).cause) {
    if (isError(e, 'INSUFFICIENT_FUNDS')) return true
  }
  return false
}
