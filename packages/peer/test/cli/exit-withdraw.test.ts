import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rpcCall, serializeDeployment } from '@jobmesh/contracts'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { readAccount } from '../../src/observe/index.js'
import { jobmesh } from './run-cli.js'
import { fakeSubmission } from '../settlement/fake-submission.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

let chain: TestChain | undefined
let dir = ''

afterEach(async () => {
  await chain?.stop()
  chain = undefined
  if (dir !== '') await rm(dir, { recursive: true, force: true })
  dir = ''
})

/** The chain flags of anvil account `i`, its key written under `dir`. */
async function walletFlags (chain: TestChain, deploymentFile: string, i: number): Promise<string[]> {
  const keyFile = join(dir, `wallet-${i}.key`)
  await writeFile(keyFile, chain.anvil.accounts[i].privateKey)
  return ['--rpc', chain.anvil.rpcUrl, '--deployment', deploymentFile, '--key-file', keyFile]
}

describe('jobmesh exit and jobmesh withdraw: an operator leaves and gets its stake back', () => {
  it('exit starts the cooldown; withdraw says why it must wait, then pays the stake back and unregisters the node', async () => {
    chain = await startChain({ accounts: 4 })
    const node = chain.clients[1]
    // node 3 leaves by calls of its own, and then withdraws with the CLI
    const other = chain.clients[3]
    await registerNodes([node, other], parseEther('1'))
    // their incentive shares recorded, as a peer's start records them
    for (const n of [node, other]) await n.pokeIncentive()
    expect((await node.incentiveAccount()).share).toBeGreaterThan(0)
    // the pool pays out over its period: node 1 earns until it asks to exit
    await other.fundIncentive(parseEther('1'))
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-exit-'))
    const deploymentFile = join(dir, 'deployment.json')
    await writeFile(deploymentFile, serializeDeployment(chain.deployment))
    const wallet = async (i: number): Promise<string[]> => await walletFlags(chain!, deploymentFile, i)
    const mine = await wallet(1)
    const address = await node.address()

    const early = await jobmesh(['withdraw', ...mine])
    expect(early.code).toBe(1)
    expect(early.stderr).toContain(`error: ${address} has not asked to exit: run \`jobmesh exit\` first`)

    const exit = await jobmesh(['exit', '--json', ...mine])
    expect(exit.stderr).toBe('')
    expect(exit.code).toBe(0)
    const report = JSON.parse(exit.stdout) as { address: string, tx: string, withdrawableAt: number, stakeWei: string }
    expect(report).toMatchObject({ address, stakeWei: String(parseEther('1')) })
    const exitBlock = await node.provider.getBlock((await node.provider.getTransactionReceipt(report.tx))?.blockNumber ?? -1)
    expect(report.withdrawableAt - (exitBlock?.timestamp ?? 0)).toBe(86_400)
    const info = await node.nodeInfo()
    expect([info.exiting, info.eligible, info.exitAt]).toEqual([true, false, report.withdrawableAt])
    // its standing (jobmesh status, the dashboard) says from when it can withdraw
    expect((await readAccount(node, address)).withdrawableAt).toBe(report.withdrawableAt)
    // a leaving node takes no share of later fundings from the nodes still working
    expect((await node.incentiveAccount()).share).toBe(0)

    const twice = await jobmesh(['exit', ...mine])
    expect(twice.code).toBe(1)
    expect(twice.stderr).toContain('asked to exit already')

    const waiting = await jobmesh(['withdraw', ...mine])
    expect(waiting.code).toBe(1)
    expect(waiting.stderr).toMatch(/error: the exit cooldown of 0x[0-9a-fA-F]{40} ends at \S+Z \(in (1 d 0 h|23 h 59 min), chain time\): withdraw after it/)
    expect((await node.nodeInfo()).stake).toBe(parseEther('1'))

    await other.requestExit()
    await rpcCall(chain.anvil.rpcUrl, 'evm_increaseTime', [86_400], { timeout: 10_000 })
    await rpcCall(chain.anvil.rpcUrl, 'evm_mine', [], { timeout: 10_000 })
    const before = await node.provider.getBalance(address)
    const withdrawn = await jobmesh(['withdraw', ...mine])
    expect(withdrawn.stderr).toBe('')
    expect(withdrawn.code).toBe(0)
    expect(withdrawn.stdout).toMatch(new RegExp(`^withdrew 1\\.0 ETH to ${address} \\(tx 0x[0-9a-f]{64}\\); the node is unregistered\\n$`))
    // the stake, less the transaction's gas
    const gained = (await node.provider.getBalance(address)) - before
    expect(gained > parseEther('0.99') && gained <= parseEther('1')).toBe(true)
    expect((await node.nodeInfo()).registered).toBe(false)
    // what it earned before it left stays its own to claim, and its standing says so (status, dashboard)
    const account = await readAccount(node, address)
    expect(account.registered).toBe(false)
    expect(account.incentive?.earnedWei).toBeGreaterThan(0n)
    expect(account.incentive?.earnedWei).toBe((await node.incentiveAccount()).earnedWei)

    // it claims what it earned; after that it is owed nothing, and claim and exit say that its node withdrew
    const claimed = await jobmesh(['claim', ...mine])
    expect(claimed.stderr).toBe('')
    expect(claimed.stdout).toMatch(new RegExp(`^claimed [0-9.]+ ETH for ${address} \\(tx 0x[0-9a-f]{64}\\)`))
    const again = await jobmesh(['claim', ...mine])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain(`nothing to claim for ${address} (recorded share 0.00, 0.00 now); it withdrew its node's stake: it is no longer a registered node`)
    const exitAfter = await jobmesh(['exit', ...mine])
    expect(exitAfter.code).toBe(1)
    expect(exitAfter.stderr).toContain(`error: ${address} withdrew its node's stake: it is no longer a registered node`)

    // a node that asked to exit by a call of its own still held its share: withdraw records it
    expect((await other.incentiveAccount()).share).toBeGreaterThan(0)
    const otherWithdrawn = await jobmesh(['withdraw', ...await wallet(3)])
    expect(otherWithdrawn.stderr).toBe('')
    expect(otherWithdrawn.stdout).toContain('its incentive share is recorded as 0.00: it takes no share of later fundings')
    expect((await other.incentiveAccount()).share).toBe(0)

    const stranger = await jobmesh(['exit', ...await wallet(2)])
    expect(stranger.code).toBe(1)
    expect(stranger.stderr).toContain("is not a registered node: a node's wallet is the one its `jobmesh start` used")
  }, 90_000)

  it('a probe task assigned before the exit holds the stake: withdraw answers it and withdraws, or says when it expired', async () => {
    chain = await startChain({ accounts: 3 })
    const [node, other] = [chain.clients[1], chain.clients[2]]
    await registerNodes([node, other], parseEther('1'))
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-exit-probe-'))
    const deploymentFile = join(dir, 'deployment.json')
    await writeFile(deploymentFile, serializeDeployment(chain.deployment))
    const wallet = async (i: number): Promise<string[]> => await walletFlags(chain!, deploymentFile, i)
    const later = async (seconds: number, blocks = 1): Promise<void> => {
      await rpcCall(chain!.anvil.rpcUrl, 'evm_increaseTime', [seconds], { timeout: 10_000 })
      for (let i = 0; i < blocks; i++) await rpcCall(chain!.anvil.rpcUrl, 'evm_mine', [], { timeout: 10_000 })
    }
    // both idle for a day: the scan gives each a probe task; then they ask to exit
    await later(86_401)
    await node.probeNext(16)
    for (const n of [node, other]) expect((await n.probeOf()).assignedBlock).toBeGreaterThan(0)
    for (const i of [1, 2]) expect((await jobmesh(['exit', ...await wallet(i)])).code).toBe(0)
    await later(86_400)

    // within the probe's window: answered, then withdrawn
    const answered = await jobmesh(['withdraw', ...await wallet(1)])
    expect(answered.stderr).toBe('')
    expect(answered.code).toBe(0)
    expect(answered.stdout).toMatch(/^answered the node's open probe task \(it held the stake\)\nwithdrew 1\.0 ETH to /)
    expect((await node.nodeInfo()).registered).toBe(false)

    // past it: the withdraw's scan closes it (scored as missed), then withdrawn
    await later(1, 21)
    const closed = await jobmesh(['withdraw', ...await wallet(2)])
    expect(closed.stderr).toBe('')
    expect(closed.stdout).toMatch(/^closed the node's open probe task \(it held the stake\)\nwithdrew 1\.0 ETH to /)
    expect((await other.nodeInfo()).registered).toBe(false)
  }, 90_000)

  it('results under verification that pay the node hold its bond: withdraw says so, and withdraws once they are settled', async () => {
    chain = await startChain({ accounts: 3 })
    const [creator, node, submitter] = [chain.clients[0], chain.clients[1], chain.clients[2]]
    await registerNodes([node, submitter], parseEther('1'))
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-exit-payee-'))
    const deploymentFile = join(dir, 'deployment.json')
    await writeFile(deploymentFile, serializeDeployment(chain.deployment))
    const mine = await walletFlags(chain, deploymentFile, 1)
    const address = await node.address()
    const later = async (seconds: number): Promise<void> => {
      await rpcCall(chain!.anvil.rpcUrl, 'evm_increaseTime', [seconds], { timeout: 10_000 })
      await rpcCall(chain!.anvil.rpcUrl, 'evm_mine', [], { timeout: 10_000 })
    }
    // this node worked on a job (joined it) and another submits results that pay it: the submission names it, locking
    // the job's bond of its stake
    const fee = parseEther('0.01')
    const jobId = await fakeSubmission(creator, submitter, { tag: 'payee-held', fee, payees: [address], joiners: [node] })
    const bond = await node.submissionBond(fee)
    expect(await node.freeStake()).toBe(parseEther('1') - bond)
    expect((await jobmesh(['exit', ...mine])).code).toBe(0)
    await later(86_400)

    const held = await jobmesh(['withdraw', ...mine])
    expect(held.code).toBe(1)
    expect(held.stderr).toContain(`error: 0.02 ETH of ${address}'s stake is the bond of results under verification (its own submissions, or others' that pay it): withdraw once they are settled`)
    expect((await node.nodeInfo()).stake).toBe(parseEther('1'))

    // nobody drew the job's verifiers: past its deadline its creator refunds it, which gives every bond of it back
    await later(60)
    await creator.refund(jobId)
    const withdrawn = await jobmesh(['withdraw', ...mine])
    expect(withdrawn.stderr).toBe('')
    expect(withdrawn.code).toBe(0)
    expect(withdrawn.stdout).toMatch(new RegExp(`^withdrew 1\\.0 ETH to ${address} `))
  }, 90_000)
})
