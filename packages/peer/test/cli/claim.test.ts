import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serializeDeployment } from '@jobmesh/contracts'
import { closedPort } from '@jobmesh/testkit'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { formatEther, parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { drawIfLate } from '../../src/settlement/index.js'
import { fakeSubmission } from '../settlement/fake-submission.js'
import { jobmesh } from './run-cli.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

let chain: TestChain | undefined
let dir = ''

afterEach(async () => {
  await chain?.stop()
  chain = undefined
  if (dir !== '') await rm(dir, { recursive: true, force: true })
  dir = ''
})

describe('jobmesh claim: what the wallet is owed, beyond the incentive', () => {
  it('withdraws the escrow credits (a late-draw bounty here) of a node that has no running peer to do it', async () => {
    chain = await startChain({ accounts: 6, blockTime: 0.1 })
    const [creator, submitter, watcher] = chain.clients
    await registerNodes(chain.clients.slice(1), parseEther('1'))
    // the watcher draws a submission its submitter sat on, and is credited the bounty from the submitter's bond
    const jobId = await fakeSubmission(creator, submitter, { tag: 'claim-credits', fee: 10n ** 15n })
    expect(await drawIfLate({ chain: watcher }, jobId, { pollMs: 50, phaseTimeoutMs: 30_000, random: () => 0 })).toBe(true)
    const credit = await watcher.credits()
    expect(credit).toBeGreaterThan(0n)

    dir = await mkdtemp(join(tmpdir(), 'jobmesh-claim-'))
    await writeFile(join(dir, 'deployment.json'), serializeDeployment(chain.deployment))
    await writeFile(join(dir, 'wallet.key'), chain.anvil.accounts[2].privateKey)
    const flags = ['--rpc', chain.anvil.rpcUrl, '--deployment', join(dir, 'deployment.json'), '--key-file', join(dir, 'wallet.key')]
    const address = await watcher.address()
    const claimed = await jobmesh(['claim', ...flags], {}, 30_000)
    expect(claimed.stderr).toBe('')
    expect(claimed.code).toBe(0)
    expect(claimed.stdout).toMatch(new RegExp(`^withdrew ${formatEther(credit).replace('.', '\\.')} ETH of escrow credits \\(verifier shares, draw bounties\\) to ${address} \\(tx 0x[0-9a-f]{64}\\)$`, 'm'))
    expect(claimed.stdout).toContain(`no incentive to claim for ${address}`)
    expect(await watcher.credits()).toBe(0n)

    // nothing more: none withdrawn, said in the JSON too
    const again = await jobmesh(['claim', '--json', ...flags], {}, 30_000)
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({ address, creditsWei: '0', creditsTx: null })

    // no chain at the URL: said in one line, as `jobmesh start` says it
    const port = await closedPort()
    const away = await jobmesh(['claim', ...flags.map(f => f === chain!.anvil.rpcUrl ? `http://127.0.0.1:${port}` : f)], {}, 30_000)
    expect(away.code).toBe(1)
    expect(away.stderr.split('\n')).toContain(`error: connection refused at 127.0.0.1:${port} (is the chain running? jobmesh devnet prints JOBMESH_RPC_URL)`)
  }, 90_000)
})
