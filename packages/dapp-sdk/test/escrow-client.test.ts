import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { serializeDeployment } from '@jobmesh/contracts'
import { afterEach, describe, expect, it } from 'vitest'
import { run } from '../src/cli/program.js'
import { createEscrowClient } from '../src/index.js'
import { SLICING, cleanup, setup, smallJob } from './helpers.js'
import type { EscrowClient } from '../src/index.js'

let escrow: EscrowClient | undefined

afterEach(async () => {
  escrow?.stop()
  escrow = undefined
  await cleanup()
})

describe('the escrow client (no node)', () => {
  it('reads a job and the wallet\'s jobs, refunds after the deadline, and starts no node', async () => {
    const env = await setup()
    const job = await env.client.submit({
      ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3, deadline: Date.now() + 600_000
    })
    escrow = await createEscrowClient({ rpcUrl: env.anvil.rpcUrl, signer: env.anvil.accounts[1].privateKey, deployment: env.deployment })
    expect(escrow.address).toBe(env.client.address)
    expect(escrow.chainId).toBe(env.anvil.chainId)
    // the escrow and nothing else: no node, no doc store (a job client has both)
    expect(Object.keys(escrow).sort()).toEqual(['address', 'chainId', 'chainTime', 'list', 'refund', 'status', 'stop'])

    expect(await escrow.status(job.jobId)).toEqual(await env.client.status(job.jobId))
    expect((await escrow.list()).map(j => j.jobId)).toEqual([job.jobId])
    expect(await escrow.list({ creator: env.wallet(2).address })).toEqual([])
    const early = await escrow.refund(job.jobId).catch((e: unknown) => e as Error & { errorName: string })
    expect(early.name).toBe('ChainRevertError')
    expect(early.errorName).toBe('DeadlineNotReached')

    const { deadline } = await escrow.status(job.jobId)
    expect(await escrow.chainTime()).toBeLessThan(deadline)

    // past the deadline by the chain's clock (this machine's is an hour behind it): status and list say the Open
    // job can only be refunded now
    await env.provider.send('evm_increaseTime', [3600])
    await env.provider.send('evm_mine', [])
    expect(await escrow.chainTime()).toBeGreaterThan(deadline)
    const deployment = join(env.dir, 'deployment.json')
    await writeFile(deployment, serializeDeployment(env.deployment))
    const flags = ['--rpc', env.anvil.rpcUrl, '--deployment', deployment, '--private-key', env.anvil.accounts[1].privateKey]
    const cli = async (args: string[]): Promise<string[]> => {
      const out: string[] = []
      expect(await run(args, { out: l => out.push(l), err: l => out.push(l) })).toBe(0)
      return out
    }
    expect(await cli(['status', job.jobId, ...flags])).toContain(`status: Open (expired: its deadline has passed, so it can no longer be released; jobmesh-dapp refund ${job.jobId} returns the fee)`)
    expect(JSON.parse((await cli(['status', job.jobId, '--json', ...flags])).join(''))).toMatchObject({ status: 'Open', expired: true })
    const listed = await cli(['list', ...flags])
    expect(listed.find(l => l.startsWith(job.jobId))).toMatch(/^0x[0-9a-f]{64} +Open \(expired\) +0\.001 ETH/)
    expect(listed.at(-1)).toBe('expired: past its deadline, a job can no longer be released; jobmesh-dapp refund <job> returns its fee')
    const refund = await escrow.refund(job.jobId)
    expect(refund.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await escrow.status(job.jobId)).status).toBe('Refunded')
    // refunded, it is no longer "expired"
    expect(JSON.parse((await cli(['list', '--json', ...flags])).join(''))).toEqual([expect.objectContaining({ status: 'Refunded', expired: false })])
    expect((await escrow.refund(job.jobId).catch((e: unknown) => e as Error)).name).toBe('JobRefundedError')
    expect((await escrow.status('0x' + 'cd'.repeat(32)).catch((e: unknown) => e as Error)).name).toBe('JobNotFoundError')
    expect((await escrow.status('hello').catch((e: unknown) => e as Error)).name).toBe('InvalidJobIdError')

    escrow.stop()
    expect((await escrow.status(job.jobId).catch((e: unknown) => e as Error)).name).toBe('ClientStoppedError')
  })

  it('refuses an unreachable endpoint and a deployment of another chain with the job client\'s errors', async () => {
    const env = await setup()
    // a client made after all is stopped by afterEach
    const failed = async (init: Parameters<typeof createEscrowClient>[0]): Promise<Error | undefined> =>
      await createEscrowClient(init).then(c => { escrow = c; return undefined }, (e: unknown) => e as Error)
    const signer = env.anvil.accounts[1].privateKey
    expect((await failed({ rpcUrl: 'http://127.0.0.1:1', signer, deployment: env.deployment }))?.name).toBe('RpcUnreachableError')
    expect((await failed({ rpcUrl: env.anvil.rpcUrl, signer, deployment: { ...env.deployment, chainId: 80002 } }))?.name).toBe('ChainMismatchError')
  })
})
