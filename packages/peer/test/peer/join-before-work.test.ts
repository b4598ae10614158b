import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { stopList, waitFor } from '@jobmesh/testkit'
import { parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { chainPeer, fundJob } from '../settlement/funded-job.js'

const running = stopList()
afterEach(running.stopAll)

describe('a peer joins a job on chain before its first MicroJob of it', () => {
  it('runs nothing of a job while its join is not mined: a submission may name only nodes that joined as payees', async () => {
    const chain = running.add(await startChain({ accounts: 5 }))
    const [creator, node] = chain.clients
    const peer = running.add(await chainPeer(chain))
    // four active nodes: the job's 3 verifiers can be drawn besides its submitter, so only the join holds it back
    await registerNodes(chain.clients.slice(2, 5), parseEther('0.1'))
    const code = await peer.store.addRaw(new TextEncoder().encode('code of the job'))
    const job = await fundJob(creator, { verifiers: 3, codeUri: `ipfs://${code}` })
    const wallet = await node.address()

    // the chain stops mining: the join the peer sends stays pending until the test mines a block
    await creator.provider.send('evm_setAutomine', [false])
    const started: Array<Promise<boolean>> = []
    peer.processor?.addEventListener('microjob:start', () => { started.push(node.hasJoined(job.jobId, wallet)) })
    await peer.processor?.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(async () => await creator.provider.getTransactionCount(wallet, 'pending') > await creator.provider.getTransactionCount(wallet, 'latest'),
      { what: 'the peer\'s join in the mempool', timeoutMs: 20_000 })
    expect(await node.hasJoined(job.jobId, wallet)).toBe(false)
    expect(started).toHaveLength(0)

    // mined: the peer goes to work (the test job's data is at an address nobody serves, so its runs fail; that they
    // start is what counts), and each MicroJob it starts finds the join on chain
    await creator.provider.send('evm_setAutomine', [true])
    await creator.provider.send('evm_mine', [])
    await waitFor(() => started.length > 0, { what: 'the peer\'s first MicroJob of the job', timeoutMs: 30_000 })
    expect(await Promise.all(started)).toEqual(started.map(() => true))
    expect(await node.findEvents({ names: ['JobJoined'], topic1: job.jobId })).toHaveLength(1)
  }, 90_000)
})
