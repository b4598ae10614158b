import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serializeDeployment } from '@jobmesh/contracts'
import { startChain } from '@jobmesh/testkit/anvil'
import { afterEach, describe, expect, it } from 'vitest'
import type { TestChain } from '@jobmesh/testkit/anvil'

/** The built `jobmesh-dapp` (npm run build). */
const BIN = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url))

const NO_ENV = { JOBMESH_RPC_URL: '', JOBMESH_DEPLOYMENT: '', JOBMESH_BOOTSTRAP: '', JOBMESH_PRIVATE_KEY: '' }

/** Runs `jobmesh-dapp` with a stdout whose reader is gone before it writes (`... | head -3` after head exited). */
async function closedStdout (args: string[], env: Record<string, string> = {}): Promise<{ code: number | null, stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...NO_ENV, ...env } })
  child.stdout.destroy()
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d })
  const [code] = await once(child, 'close') as [number | null]
  return { code, stderr }
}

describe('jobmesh-dapp as a process', () => {
  let chain: TestChain | undefined
  let dir = ''
  afterEach(async () => {
    await chain?.stop()
    chain = undefined
    if (dir !== '') await rm(dir, { recursive: true, force: true })
    dir = ''
  })

  it('ends quietly with its usual exit code when the reader closes its stdout, no EPIPE stack trace', async () => {
    const help = await closedStdout(['--help'])
    expect(help.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/)
    expect(help.code).toBe(0)

    // a command that reads the chain before it prints
    chain = await startChain({ accounts: 2 })
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-dapp-epipe-'))
    const deployment = join(dir, 'deployment.json')
    await writeFile(deployment, serializeDeployment(chain.deployment))
    const list = await closedStdout(['list', '--rpc', chain.anvil.rpcUrl, '--deployment', deployment],
      { JOBMESH_PRIVATE_KEY: chain.anvil.accounts[1].privateKey })
    expect(list.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/)
    expect(list.code).toBe(0)
  }, 60_000)
})
