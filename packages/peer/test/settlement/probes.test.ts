import { pollUntil } from '@jobmesh/contracts'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { Wallet } from 'ethers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { answerOwnProbes, scanProbes } from '../../src/settlement/probes.js'
import type { ProbeAnswer } from '../../src/settlement/probes.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { NodeKey, TestChain } from '@jobmesh/testkit/anvil'

const STAKE = 10n ** 17n

describe('probe tasks on a real chain: a live node answers its probes, a silent one misses them and is paused', () => {
  let chain: TestChain
  let chains: ChainClient[]
  let keys: NodeKey[]
  let controller: AbortController
  let duties: Array<Promise<void>>

  beforeEach(async () => {
    // a probe for a node without a scored task for 2 s
    chain = await startChain({ accounts: 4, blockTime: 0.5, deploy: { registry: { probeInterval: 2 } } })
    chains = chain.clients.slice(1)
    keys = await registerNodes(chains, STAKE)
    controller = new AbortController()
    duties = []
  })

  afterEach(async () => {
    controller.abort()
    await Promise.allSettled(duties)
    await chain.stop()
  })

  it('the keeper assigns due probes; the live node answers them, scored by speed; the silent one scores 0 and is paused', async () => {
    const [live, keeper, silent] = chains
    const errors: Error[] = []
    const answers: ProbeAnswer[] = []
    const options = { signal: controller.signal, onError: (e: Error) => { errors.push(e) } }
    const fromBlock = await live.blockNumber()
    duties.push(answerOwnProbes(live, a => { answers.push(a) }, { ...options, fromBlock, pollMs: 50 }))
    // another node keeps the probes going (the live one does too in a peer; here one keeper is enough)
    const keeping = new AbortController()
    // stopped mid-test below: its AbortError is expected (handled at once, not only when afterEach settles the duties)
    duties.push(scanProbes(keeper, () => {}, { ...options, signal: AbortSignal.any([controller.signal, keeping.signal]), intervalMs: 200, maxScan: 16 })
      .catch((err: Error) => { if (err.name !== 'AbortError') throw err }))

    const silentAddress = await silent.address()
    await pollUntil(async () => (await live.findEvents({ names: ['ProbeMissed'], topic1: silentAddress, fromBlock }))[0],
      { pollMs: 100, timeoutMs: 60_000, what: 'the silent node\'s ProbeMissed' })
    expect((await silent.nodeInfo()).paused).toBe(true)
    expect((await silent.nodeInfo()).score).toBe(0n)

    // no new probes from here; the one the live node may be answering is answered (and reported: the duty reports
    // after its receipt, which may come after the event is visible) before the counts are compared
    keeping.abort()
    const me = await live.address()
    const answered = await pollUntil(async () => {
      if ((await live.probeOf(me)).assignedBlock !== 0) return undefined
      const events = await live.findEvents({ names: ['ProbeAnswered'], topic1: me, fromBlock })
      return events.length === answers.length ? events : undefined
    }, { pollMs: 100, timeoutMs: 20_000, what: 'the live node\'s answers, all on chain and reported' })
    const info = await live.nodeInfo()
    expect(answered.length).toBeGreaterThanOrEqual(1)
    expect(answers.map(a => a.txHash).sort()).toEqual(answered.map(e => e.transactionHash).sort())
    // scored by speed: 2000 within PROBE_WINDOW / 4 blocks (2.5 s here), 1000 within half the window
    const scores = answered.map(e => e.args.taskScore as bigint)
    for (const s of scores) expect(s).toBeGreaterThanOrEqual(1000n)
    expect(info.paused).toBe(false)
    expect(info.score).toBe(scores.reduce((a, b) => a + b, 0n) / BigInt(scores.length))
    expect(errors).toEqual([])
  }, 90_000)

  it('a probe answer whose send failed is sent again within the probe\'s window, and one after another sender of the wallet took its nonce goes through: answered, not missed', async () => {
    const [live, keeper] = chains
    const errors: Error[] = []
    const answers: ProbeAnswer[] = []
    const options = { signal: controller.signal, onError: (e: Error) => { errors.push(e) } }
    const fromBlock = await live.blockNumber()
    // the node's first send (its first probe answer) fails on the way: the endpoint dropped the connection
    const broadcast = live.provider.broadcastTransaction.bind(live.provider)
    let failed = 0
    live.provider.broadcastTransaction = async (signed) => {
      if (failed++ === 0) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
      return await broadcast(signed)
    }
    duties.push(answerOwnProbes(live, a => { answers.push(a) }, { ...options, fromBlock, pollMs: 50 }))
    duties.push(scanProbes(keeper, () => {}, { ...options, intervalMs: 200, maxScan: 16 })
      .catch((err: Error) => { if (err.name !== 'AbortError') throw err }))

    const first = await pollUntil(async () => answers[0], { pollMs: 100, timeoutMs: 60_000, what: 'the live node\'s first probe answer' })
    expect(failed).toBeGreaterThanOrEqual(2)
    expect((await live.provider.getTransactionReceipt(first.txHash))?.status).toBe(1)
    const me = await live.address()

    // another signer of the node's wallet sends a transaction (`jobmesh claim` with the running peer's key): the
    // nonce the node keeps is taken, and its next answer still goes through
    const other = new Wallet(chain.anvil.accounts[1].privateKey, chain.client(1).provider)
    expect(other.address).toBe(me)
    await (await other.sendTransaction({ to: me, value: 1n })).wait(1, 30_000)
    const second = await pollUntil(async () => answers[1], { pollMs: 100, timeoutMs: 60_000, what: 'the live node\'s next probe answer' })
    expect((await live.provider.getTransactionReceipt(second.txHash))?.status).toBe(1)
    expect(await live.findEvents({ names: ['ProbeMissed'], topic1: me, fromBlock })).toEqual([])
    expect((await live.nodeInfo()).paused).toBe(false)
    expect(errors).toEqual([])
  }, 90_000)

  it('a paused node that starts again is resumed by its registration, which says so', async () => {
    const [node, keeper] = chains
    const fromBlock = await node.blockNumber()
    duties.push(scanProbes(keeper, () => {}, { signal: controller.signal, intervalMs: 200, maxScan: 16 })
      .catch((err: Error) => { if (err.name !== 'AbortError') throw err }))
    const me = await node.address()
    await pollUntil(async () => (await node.findEvents({ names: ['ProbeMissed'], topic1: me, fromBlock }))[0], { pollMs: 100, timeoutMs: 60_000, what: 'ProbeMissed' })
    const paused = await node.nodeInfo()
    expect(paused.paused).toBe(true)
    // what `jobmesh start` does at its start: the same stake wanted again, so nothing added, only resumed
    const key = keys[0]
    const again = await node.ensureRegistered({ peerId: peerIdFromPrivateKey(key).toString(), privateKey: key, gpuModel: 'cpu', vramGb: 1, stake: paused.stake })
    expect(again).toEqual({ registered: false, stakeAdded: 0n, stake: paused.stake, resumed: true, exiting: false })
    expect((await node.nodeInfo()).paused).toBe(false)
  }, 90_000)
})
