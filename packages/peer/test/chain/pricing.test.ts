import { randomInt } from 'node:crypto'
import { connect, createProvider, deploy } from '@jobmesh/contracts'
import { Wallet, id as keccakText } from 'ethers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { workerAnvil } from '@jobmesh/testkit/anvil'
import { createChainClient } from '@jobmesh/contracts'
import { taskValue } from '../../src/protocol/index.js'
import { PRICING_TABLE, TABLE_MS_PER_MICRO_JOB } from '../fixtures/pricing-table.js'
import type { Anvil, EscrowParams } from '@jobmesh/contracts'
import type { ChainClient } from '@jobmesh/contracts'
import type { PricingParams } from '../../src/protocol/index.js'
import type { JsonRpcProvider } from 'ethers'

/** The protocol core's `taskValue` and the escrow's agree on the same integers, on a real chain. */
describe('task value: protocol core vs the escrow on anvil', () => {
  let anvil: Anvil
  let provider: JsonRpcProvider
  let clients: ChainClient[]

  beforeEach(async () => {
    clients = []
    anvil = await workerAnvil({ accounts: 2 })
    provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
  })
  afterEach(async () => {
    for (const c of clients) c.provider.destroy()
    provider.destroy()
    await anvil.stop()
  })

  /** A fresh deployment with these pricing parameters; its escrow (read only) and a chain client of account 1. */
  const network = async (pricing: Pick<EscrowParams, 'overheadMs' | 'msPerMicroJob'>): Promise<{ escrow: ReturnType<typeof connect>['jobEscrow'], client: ChainClient }> => {
    const deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider), { escrow: pricing })
    const client = createChainClient({ provider, signer: new Wallet(anvil.accounts[1].privateKey), deployment }, { pollMs: 50 })
    clients.push(client)
    return { escrow: connect(deployment, provider).jobEscrow, client }
  }

  it('holds the spec\'s pricing table on chain with the same integers, for quotes and for created jobs', async () => {
    for (const overheadMs of [0, 30_000]) {
      const { escrow, client } = await network({ overheadMs, msPerMicroJob: TABLE_MS_PER_MICRO_JOB })
      const pricing = await client.pricing()
      expect(pricing).toEqual({ overheadMs, msPerMicroJob: TABLE_MS_PER_MICRO_JOB })
      const deadline = Math.floor(Date.now() / 1000) + 3600
      for (const [i, row] of PRICING_TABLE.filter(r => r.overheadMs === overheadMs).entries()) {
        expect(taskValue(row.fee, row.microJobs, pricing)).toBe(row.value)
        expect(await escrow.quoteTaskValue(row.fee, row.microJobs)).toBe(row.value)
        // a real job of that size: the creator's run-time hint (secondsPerMicroJob) does not enter the value
        const { jobId } = await client.createJob({
          specCid: `bafkreipricing${i}`, nonce: BigInt(i), jobRoot: keccakText(`root${i}`), seed: 1n, macroJobs: 1,
          microJobsPerMacro: row.microJobs, minVramGb: 0, k: 3, deadline, secondsPerMicroJob: 3600
        }, row.fee)
        expect(await escrow.taskValue(jobId)).toBe(row.value)
      }
    }
  })

  it('agrees on random fees, sizes and network parameters', async () => {
    for (let n = 0; n < 3; n++) {
      const params: PricingParams = { overheadMs: randomInt(0, 2 ** 32 - 1), msPerMicroJob: randomInt(1, 2 ** 32 - 1) }
      const { escrow, client } = await network(params)
      const pricing = await client.pricing()
      expect(pricing).toEqual(params)
      for (let i = 0; i < 8; i++) {
        const fee = BigInt(randomInt(0, 2 ** 48 - 1)) * BigInt(randomInt(0, 2 ** 48 - 1)) // up to ~2^96 wei
        const microJobs = BigInt(randomInt(1, 2 ** 32 - 1)) * BigInt(randomInt(1, 2 ** 16))
        expect(taskValue(fee, microJobs, pricing), `fee ${fee}, ${microJobs} MicroJobs, ${JSON.stringify(params)}`)
          .toBe(await escrow.quoteTaskValue(fee, microJobs))
      }
    }
  })
})
