import { pollUntil } from '@jobmesh/contracts'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { answerOwnProbes, scanProbes } from '../../src/settlement/probes.js'
import { stayInDraw } from '../../src/settlement/stay-in-draw.js'
import type { OwnPause } from '../../src/settlement/stay-in-draw.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { TestChain } from '@jobmesh/testkit/anvil'

const STAKE = 10n ** 17n

describe('a running node the registry paused goes back into the draw, up to a number of pauses in a row (real chain)', () => {
  let chain: TestChain
  let node: ChainClient
  let keeper: ChainClient
  let controller: AbortController
  let duties: Array<Promise<void>>
  let errors: Error[]
  let pauses: OwnPause[]

  beforeEach(async () => {
    // a probe for a node without a scored task for 2 s; its window is 20 blocks (5 s here)
    chain = await startChain({ accounts: 3, blockTime: 0.25, deploy: { registry: { probeInterval: 2 } } })
    ;[node, keeper] = chain.clients.slice(1)
    await registerNodes([node, keeper], STAKE)
    controller = new AbortController()
    duties = []
    errors = []
    pauses = []
  })

  afterEach(async () => {
    controller.abort()
    await Promise.allSettled(duties)
    await chain.stop()
  })

  /** The network's probe keeper (another node), and this node's pause duty, resuming after `resumesInARow` pauses. */
  async function run (resumesInARow: number, from?: number): Promise<number> {
    const fromBlock = from ?? await node.blockNumber()
    const options = { signal: controller.signal, onError: (e: Error) => { errors.push(e) } }
    duties.push(scanProbes(keeper, () => {}, { ...options, intervalMs: 200, maxScan: 16 }))
    duties.push(stayInDraw(node, p => { pauses.push(p) }, { ...options, fromBlock, pollMs: 50, resumesInARow }))
    return fromBlock
  }

  const nthPause = async (n: number): Promise<OwnPause> =>
    await pollUntil(async () => pauses[n - 1], { pollMs: 100, timeoutMs: 60_000, what: `pause ${n} handled` })

  it('a missed probe pauses the node and it resumes itself; after one more pause than it may resume after, it stays paused and says so', async () => {
    // what a stop and a start left in the blocks the duty scans: the node's own pause, and the start's resume
    const fromBlock = await node.blockNumber()
    await node.pause()
    await node.resume()
    await run(1, fromBlock)

    const first = await nthPause(1)
    expect(first).toMatchObject({ cause: 'probe', inARow: 1, outcome: 'resumed' })
    expect((await node.provider.getTransactionReceipt(first.txHash ?? ''))?.status).toBe(1)
    const me = await node.address()
    const [missed] = await node.findEvents({ names: ['ProbeMissed'], topic1: me, fromBlock })
    expect(first.pausedBlock).toBe(missed.blockNumber)
    // the earlier pause, seen first, was not handled: the node was not paused when the duty read it
    expect((await node.findEvents({ names: ['NodePaused'], topic1: me, fromBlock }))[0].blockNumber).toBeLessThan(first.pausedBlock)

    // still not answering: probed again 2 s later, missed, paused again with no scored task between
    const second = await nthPause(2)
    expect(second).toMatchObject({ cause: 'probe', inARow: 2, outcome: 'stayed' })
    expect(second.txHash).toBeUndefined()
    expect((await node.nodeInfo()).paused).toBe(true)
    // one resume sent by the duty, the first pause's (the other is the test's own, before it)
    expect((await node.findEvents({ names: ['NodeResumed'], topic1: me, fromBlock })).map(e => e.transactionHash).slice(1)).toEqual([first.txHash])
    expect(errors).toEqual([])
  }, 120_000)

  it('a task scored between two pauses starts the count again', async () => {
    const fromBlock = await run(1)
    const first = await nthPause(1)
    expect(first).toMatchObject({ cause: 'probe', inARow: 1, outcome: 'resumed' })

    // the node answers its next probe (a task scored above 0), then goes quiet again
    const answering = new AbortController()
    const answered: string[] = []
    const me = await node.address()
    duties.push(answerOwnProbes(node, a => { answered.push(a.txHash) }, {
      signal: AbortSignal.any([controller.signal, answering.signal]), onError: (e) => { errors.push(e) }, fromBlock: await node.blockNumber(), pollMs: 50
    }).catch((err: Error) => { if (err.name !== 'AbortError') throw err }))
    await pollUntil(async () => answered[0], { pollMs: 100, timeoutMs: 60_000, what: 'a probe answered' })
    answering.abort()
    const scores = await node.findEvents({ names: ['TaskScoreRecorded'], topic1: me, fromBlock })
    // the miss's 0, then the answer's score above 0
    expect(scores.map(e => (e.args.taskScore as bigint) > 0n)).toEqual([false, true])

    const second = await nthPause(2)
    expect(second).toMatchObject({ cause: 'probe', inARow: 1, outcome: 'resumed' })
    expect((await node.nodeInfo()).paused).toBe(false)
    expect(errors).toEqual([])
  }, 120_000)
})
