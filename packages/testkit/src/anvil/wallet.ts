import { DEFAULT_GAS_MARGIN_BPS } from '@jobmesh/contracts'
import { Wallet } from 'ethers'
import type { Provider, TransactionRequest } from 'ethers'

/**
 * A wallet for tests that send contract calls with ethers directly: its gas estimate carries the chain client's
 * margin (`DEFAULT_GAS_MARGIN_BPS`), as the peers' transactions do. A bare estimate is the least gas that succeeds
 * in the pending block; a call whose cost depends on `block.timestamp` (a slot written with the current second
 * costs 100 gas when it already holds it, 2 900 when not) runs out of gas when it is mined a second later.
 */
export class TestWallet extends Wallet {
  override connect (provider: Provider | null): TestWallet {
    return new TestWallet(this.signingKey, provider)
  }

  override async estimateGas (tx: TransactionRequest): Promise<bigint> {
    return (await super.estimateGas(tx)) * BigInt(DEFAULT_GAS_MARGIN_BPS) / 10_000n
  }
}

/** A {@link TestWallet} for `privateKey` on `provider`. */
export function testWallet (privateKey: string, provider: Provider): TestWallet {
  return new TestWallet(privateKey, provider)
}
