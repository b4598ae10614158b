import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rpcCall, serializeDeployment } from '@jobmesh/contracts'
import { registerNodes, startChain } from '@jobmesh/testkit/anvil'
import { parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
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

describe('jobmesh exit and jobmesh withdraw: an operator leaves and gets its stake back', () => {
  it('exit starts the cooldown; withdraw says why it must wait, then pays the stake back and unregisters the node', async () => {
    chain = await startChain({ accounts: 3 })
    const node = chain.clients[1]
    await registerNodes([node], parseEther('1'))
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-exit-'))
    const deploymentFile = join(dir, 'deployment.json')
    await writeFile(deploymentFile, serializeDeployment(chain.deployment))
    const wallet = async (i: number): Promise<string[]> => {
      const keyFile = join(dir, `wallet-${i}.key`)
      await writeFile(keyFile, chain!.anvil.accounts[i].privateKey)
      return ['--rpc', chain!.anvil.rpcUrl, '--deployment', deploymentFile, '--key-file', keyFile]
    }
    const mine = await wallet(1)
    const address = await node.address()

    const early = await jobmesh(['withdraw', ...mine])
    expect(early.code).toBe(1)
    expect(early.stderr).toContain(`error: ${address} has not asked to exit: run \`jobmesh exit\` first`)

    const exit = await jobmesh(['exit', '--json', ...mine])
    expect(exit.stderr).toBe('')
    expect(exit.code).toBe(0)
    const report = JSON.parse(exit.stdout) as { address: string, withdrawableAt: number, stakeWei: string }
    expect(report).toMatchObject({ address, stakeWei: String(parseEther('1')) })
    expect(report.withdrawableAt - await node.chainTime()).toBe(86_400)
    const info = await node.nodeInfo()
    expect([info.exiting, info.eligible]).toEqual([true, false])

    const twice = await jobmesh(['exit', ...mine])
    expect(twice.code).toBe(1)
    expect(twice.stderr).toContain('asked to exit already')

    const waiting = await jobmesh(['withdraw', ...mine])
    expect(waiting.code).toBe(1)
    expect(waiting.stderr).toMatch(/error: the exit cooldown of 0x[0-9a-fA-F]{40} ends at \S+Z \(in 1 d 0 h, chain time\): withdraw after it/)
    expect((await node.nodeInfo()).stake).toBe(parseEther('1'))

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

    const stranger = await jobmesh(['exit', ...await wallet(2)])
    expect(stranger.code).toBe(1)
    expect(stranger.stderr).toContain('is not a registered node')
  }, 90_000)
})
