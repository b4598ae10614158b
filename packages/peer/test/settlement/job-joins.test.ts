import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { jobJoins } from '../../src/settlement/index.js'
import { MAX_REMEMBERED_JOINS } from '../../src/settlement/constants.js'
import { fakeJob, fakeSubmission, submitFake } from './fake-submission.js'
import type { JobJoins } from '../../src/settlement/index.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

let chain: TestChain | undefined
let joins: JobJoins | undefined

afterEach(async () => {
  joins?.stop()
  joins = undefined
  await chain?.stop()
  chain = undefined
})

describe('jobJoins', () => {
  it('joins a job once however often it is asked, so a submission can name this node; an unknown job fails at once', async () => {
    chain = await startChain({ accounts: 3 })
    const [creator, node, submitter] = chain.clients
    await registerNodes([node, submitter], parseEther('1'))
    const jobId = await fakeJob(creator, { tag: 'joins', fee: parseEther('0.01') })
    const failed: Array<[string, string]> = []
    joins = jobJoins({ chain: node }, { onFailed: (id, err) => { failed.push([id, String((err as { errorName?: string }).errorName)]) } })
    // asked by several preparations of one job at once: one transaction goes out, each ask resolves once it is mined
    const asks = [...Array.from({ length: 5 }, () => jobId), jobId.toUpperCase().replace('0X', '0x')].map(async id => { await joins?.join(id, 0) })
    await Promise.all(asks)
    expect(await node.hasJoined(jobId, await node.address())).toBe(true)
    expect(await node.findEvents({ names: ['JobJoined'], topic1: jobId })).toHaveLength(1)
    // an unknown job: the revert reaches the asker at once, and is told once
    const unknown = '0x' + '77'.repeat(32)
    await expect(joins.join(unknown, 0)).rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'UnknownJob' })
    expect(failed).toEqual([[unknown, 'UnknownJob']])

    // joined, the node can be named by another node's submission of the job (its bond locked); not joined, it cannot
    await submitFake(submitter, jobId, 'joins', [await node.address()])
    expect(await node.freeStake()).toBe(parseEther('1') - await node.submissionBond(parseEther('0.01')))
    await expect(fakeSubmission(creator, submitter, { tag: 'not-joined', nonce: 2n, fee: parseEther('0.01'), payees: [await node.address()] }))
      .rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'PayeeNotJoined' })
  }, 60_000)

  it('remembers the newest jobs it joined: the oldest, asked again, is read on chain again (one read, no transaction)', async () => {
    const reads: string[] = []
    const sent: string[] = []
    // a chain where every job exists and is joined once sent: the logic of remembering, not the escrow's
    const joined = new Set<string>()
    const fake = {
      address: async () => '0x' + '11'.repeat(20),
      hasJoined: async (jobId: string) => { reads.push(jobId); return joined.has(jobId) },
      joinJob: async (jobId: string) => { sent.push(jobId); joined.add(jobId); return { hash: '0x', blockNumber: 1 } }
    }
    const j = jobJoins({ chain: fake as unknown as Parameters<typeof jobJoins>[0]['chain'] })
    joins = j
    const id = (i: number): string => '0x' + i.toString(16).padStart(64, '0')
    await Promise.all(Array.from({ length: MAX_REMEMBERED_JOINS + 1 }, async (_, i) => { await j.join(id(i), 0) }))
    expect(sent).toHaveLength(MAX_REMEMBERED_JOINS + 1)
    reads.length = 0
    // the newest are remembered: asked again, nothing is read
    await j.join(id(MAX_REMEMBERED_JOINS), 0)
    await j.join(id(1), 0)
    expect(reads).toEqual([])
    // the oldest was forgotten: read again, found joined, nothing sent
    await j.join(id(0), 0)
    expect(reads).toEqual([id(0)])
    expect(sent).toHaveLength(MAX_REMEMBERED_JOINS + 1)
  })

  it('joins each round of a job: a join of round 0 is no consent to round 1 (the escrow asks one per round)', async () => {
    let round = 0
    const joinedRound = new Map<string, number>()
    const sent: Array<[string, number]> = []
    // the escrow's rule: hasJoined answers for the job's current round, and joinJob joins that round
    const fake = {
      address: async () => '0x' + '11'.repeat(20),
      hasJoined: async (jobId: string) => joinedRound.get(jobId) === round,
      joinJob: async (jobId: string) => { sent.push([jobId, round]); joinedRound.set(jobId, round); return { hash: '0x', blockNumber: 1 } }
    }
    const j = jobJoins({ chain: fake as unknown as Parameters<typeof jobJoins>[0]['chain'] })
    joins = j
    const id = '0x' + '44'.repeat(32)
    await j.join(id, 0)
    await j.join(id, 0)
    expect(sent).toEqual([[id, 0]])
    // round 0 rejected: the processor's context of round 1 asks again, and a join of round 1 goes out
    round = 1
    await j.join(id, 1)
    expect(sent).toEqual([[id, 0], [id, 1]])
    await j.join(id, 1)
    expect(sent).toHaveLength(2)
  })

  it('a join given up is tried again when asked again; one not mined within the wait is a JoinNotMinedError and goes on', async () => {
    let rpcAway = true
    const sent: string[] = []
    const mined = Promise.withResolvers<void>()
    const fake = {
      address: async () => '0x' + '11'.repeat(20),
      hasJoined: async () => {
        if (rpcAway) throw Object.assign(new Error('connection refused'), { name: 'RpcUnreachableError' })
        return false
      },
      joinJob: async (jobId: string) => { sent.push(jobId); await mined.promise; return { hash: '0x', blockNumber: 1 } }
    }
    const failed: string[] = []
    const j = jobJoins({ chain: fake as unknown as Parameters<typeof jobJoins>[0]['chain'] }, { timeoutMs: 0, waitMs: 300, onFailed: (_id, err) => { failed.push(err.name) } })
    joins = j
    const id = '0x' + '22'.repeat(32)
    // the RPC is away for the whole (zero) retry time: given up, told
    await expect(j.join(id, 0)).rejects.toMatchObject({ name: 'RpcUnreachableError' })
    expect(failed).toEqual(['RpcUnreachableError'])
    // back: asked again, the join is tried again; its transaction is not mined within the wait
    rpcAway = false
    await expect(j.join(id, 0)).rejects.toMatchObject({ name: 'JoinNotMinedError' })
    expect(sent).toEqual([id])
    // it went on: mined, the next ask resolves without a second transaction
    mined.resolve()
    await j.join(id, 0)
    expect(sent).toEqual([id])
    // an asker's own signal ends its wait, as itself
    const ended = new AbortController()
    ended.abort()
    await expect(j.join('0x' + '33'.repeat(32), 0, { signal: ended.signal })).rejects.toMatchObject({ name: 'AbortError' })
  })
})
