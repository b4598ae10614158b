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
    // a processor's MicroJobs of one job: every start asks, one transaction goes out
    for (let i = 0; i < 5; i++) joins.join(jobId)
    joins.join(jobId.toUpperCase().replace('0X', '0x'))
    const unknown = '0x' + '77'.repeat(32)
    joins.join(unknown)
    await joins.settled()
    expect(await node.hasJoined(jobId, await node.address())).toBe(true)
    expect(await node.findEvents({ names: ['JobJoined'], topic1: jobId })).toHaveLength(1)
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
    joins = jobJoins({ chain: fake as unknown as Parameters<typeof jobJoins>[0]['chain'] })
    const id = (i: number): string => '0x' + i.toString(16).padStart(64, '0')
    for (let i = 0; i <= MAX_REMEMBERED_JOINS; i++) joins.join(id(i))
    await joins.settled()
    expect(sent).toHaveLength(MAX_REMEMBERED_JOINS + 1)
    reads.length = 0
    // the newest are remembered: asked again, nothing is read
    joins.join(id(MAX_REMEMBERED_JOINS))
    joins.join(id(1))
    await joins.settled()
    expect(reads).toEqual([])
    // the oldest was forgotten: read again, found joined, nothing sent
    joins.join(id(0))
    await joins.settled()
    expect(reads).toEqual([id(0)])
    expect(sent).toHaveLength(MAX_REMEMBERED_JOINS + 1)
  })
})
