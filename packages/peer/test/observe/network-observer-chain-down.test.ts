import { createChainClient, createProvider } from '@jobmesh/contracts'
import { closedPort, startPeers, stopPeers, testExecutor, testJob, waitFor } from '@jobmesh/testkit'
import { startChain } from '@jobmesh/testkit/anvil'
import { Wallet } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { EventLog, NetworkObserver } from '../../src/observe/index.js'
import type { TestPeer } from '@jobmesh/testkit'
import type { TestChain } from '@jobmesh/testkit/anvil'

let peers: TestPeer[] = []
let observer: NetworkObserver | undefined
let chain: TestChain | undefined
let stopClient = (): void => {}
afterEach(async () => {
  observer?.stop()
  observer = undefined
  stopClient()
  stopClient = () => {}
  await stopPeers(peers)
  peers = []
  await chain?.stop()
  chain = undefined
})

describe('NetworkObserver with its chain unreachable', () => {
  it('does not guess a job\'s phase: a done job is not "waiting for the finalizer", the card says the chain is unread', async () => {
    peers = await startPeers(1, { executor: testExecutor({ workMs: 5 }) })
    const [p] = peers
    await p.processor.start()
    const job = testJob(1, 2)
    // a real chain client of a real deployment, whose RPC endpoint refuses connections (a port just closed)
    chain = await startChain({ accounts: 1 })
    const client = createChainClient({
      provider: createProvider(`http://127.0.0.1:${await closedPort()}`, { chainId: chain.anvil.chainId }),
      signer: new Wallet(chain.anvil.accounts[0].privateKey),
      deployment: chain.deployment
    })
    stopClient = () => { client.provider.destroy() }
    observer = new NetworkObserver({ node: p.node, docs: p.docs, events: new EventLog(), chain: client, processor: p.processor }, { chainRefreshMs: 0 })
    await observer.start()
    await p.processor.announceJob(job.spec, job.jobId, job.specCid)
    await waitFor(() => observer?.state().jobs[0]?.progress.done === 2, { timeoutMs: 20_000, what: 'the job done' })
    await observer.refreshChain()
    const state = observer.state()
    expect(state.chainError).toMatch(/^RpcUnreachableError: /)
    const story = state.jobs[0].story
    expect(story.chainUnread).toBe(true)
    expect(story.phase).not.toBe('processed')
    expect(story.waitingFor).toMatch(/^not known while the chain cannot be read/)
    expect(story.lines).toContainEqual(expect.stringMatching(/^note: the chain could not be read \(RpcUnreachableError: /))
  })
})
