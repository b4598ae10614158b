import { deploy, createProvider } from '@jobmesh/contracts'
import { Wallet, parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { workerAnvil } from '@jobmesh/testkit/anvil'
import { createPeer } from '../../src/peer.js'
import { microJobCount, taskValue } from '../../src/protocol/index.js'
import type { Peer } from '../../src/peer.js'
import type { Anvil } from '@jobmesh/contracts'
import { testJob } from '@jobmesh/testkit'

let anvil: Anvil | undefined
let peer: Peer | undefined

afterEach(async () => {
  await peer?.stop()
  peer = undefined
  await anvil?.stop()
  anvil = undefined
})

describe('a peer on a chain', () => {
  it('values jobs by the deployed escrow\'s pricing parameters for its job choice', async () => {
    anvil = await workerAnvil({ accounts: 2 })
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    const pricing = { overheadMs: 5_000, msPerMicroJob: 250 }
    const deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider), { escrow: pricing })
    provider.destroy()
    peer = await createPeer({
      listen: ['/ip4/127.0.0.1/tcp/0'],
      gpuModel: 'cpu',
      vramGb: 1,
      chain: { rpcUrl: anvil.rpcUrl, privateKey: anvil.accounts[1].privateKey, deployment, stake: parseEther('0.1') }
    })
    const job = testJob(2, 4)
    await peer.processor?.announceJob(job.spec, job.jobId, job.specCid)
    const known = peer.status().jobs.find(j => j.jobId === job.jobId.toLowerCase())
    expect(known?.microJobs).toBe(8)
    const value = taskValue(job.spec.price, microJobCount(job.spec), pricing)
    expect(value).toBe(job.spec.price * 1000n / (5_000n + 8n * 250n))
    // exact, as a decimal string (a number lost wei past 2^53)
    expect(known?.value).toBe(value.toString())
  })
})
