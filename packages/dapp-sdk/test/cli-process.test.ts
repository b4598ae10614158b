import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serializeDeployment } from '@jobmesh/contracts'
import { waitFor } from '@jobmesh/testkit'
import { keccak256, toUtf8Bytes } from 'ethers'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { startChain } from '@jobmesh/testkit/anvil'
import { afterEach, describe, expect, it } from 'vitest'
import { smallJob } from './helpers.js'
import type { TestChain } from '@jobmesh/testkit/anvil'

/** The built `jobmesh-dapp` (npm run build). */
const BIN = fileURLToPath(new URL('../dist/bundle/jobmesh-dapp.js', import.meta.url))

const NO_ENV = { JOBMESH_RPC_URL: '', JOBMESH_DEPLOYMENT: '', JOBMESH_BOOTSTRAP: '', JOBMESH_PRIVATE_KEY: '' }

/** Runs `jobmesh-dapp` with a stdout whose reader is gone before it writes (`... | head -3` after head exited). */
/** Runs `jobmesh-dapp` to its end: exit code, stdout and stderr. */
async function jobmeshDapp (args: string[], env: Record<string, string> = {}): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...NO_ENV, ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d })
  const [code] = await once(child, 'close') as [number | null]
  return { code, stdout, stderr }
}

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

  it('submit refuses --verifiers and --deadline-minutes beyond the escrow\'s bounds before any upload or payment, exit 2', async () => {
    // the default deployment: at most 7 verifiers, deadlines up to 30 days
    chain = await startChain({ accounts: 2 })
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-dapp-bounds-'))
    const { code, data } = smallJob()
    const files = { code: join(dir, 'job.wasm'), data: join(dir, 'data.bin'), deployment: join(dir, 'deployment.json') }
    await writeFile(files.code, code)
    await writeFile(files.data, data)
    await writeFile(files.deployment, serializeDeployment(chain.deployment))
    const key = chain.anvil.accounts[1]
    const submit = async (extra: string[]): Promise<{ code: number | null, stdout: string, stderr: string }> =>
      await jobmeshDapp(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
        '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--detach', '--rpc', chain!.anvil.rpcUrl,
        '--deployment', files.deployment, ...extra], { JOBMESH_PRIVATE_KEY: key.privateKey })
    for (const [extra, line] of [
      [['--verifiers', '8'], '  verifiers: k (verifiers) must be at most 7: this network\'s escrow accepts 3 to 7 verifiers, not 8'],
      [['--verifiers', '300'], '  verifiers: k (verifiers) must be at most 7: this network\'s escrow accepts 3 to 7 verifiers, not 300'],
      [['--deadline-minutes', '100000'], '  deadline: deadline is more than 30 days away: this network\'s escrow accepts a deadline at most 30 days after the job is created']
    ] as const) {
      const r = await submit([...extra])
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toContain('invalid job:')
      expect(r.stderr).toContain(line)
      expect(r.stderr).not.toMatch(/uploading|TypeError|ChainRevertError/)
      expect(r.stdout).not.toContain('jobId')
    }
    // nothing was sent from the wallet
    expect(await chain.clients[1].provider.getTransactionCount(key.address)).toBe(0)
  }, 60_000)

  it('Ctrl-C during results with --json: an error document on stdout, exit 130, and the empty --out folders it made removed', async () => {
    chain = await startChain({ accounts: 2 })
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-dapp-results-interrupt-'))
    const deployment = join(dir, 'deployment.json')
    await writeFile(deployment, serializeDeployment(chain.deployment))
    // a job whose spec nobody serves: results waits for it (up to --fetch-timeout)
    const spec = CID.create(1, 0x55, await sha256.digest(new TextEncoder().encode(`nobody holds this ${dir}`)))
    const head = await chain.clients[0].provider.getBlock('latest')
    const { jobId } = await chain.clients[0].createJob({
      specCid: spec.toString(), nonce: 1n, jobRoot: keccak256(toUtf8Bytes('jobs')), seed: 7n, macroJobs: 1, microJobsPerMacro: 2,
      minVramGb: 0, k: 3, deadline: Number(head?.timestamp ?? 0) + 86_400, secondsPerMicroJob: 1
    }, 10n ** 15n)
    const out = join(dir, 'made', 'here')
    const child = spawn(process.execPath, [BIN, 'results', jobId, '--out', out, '--json', '--rpc', chain.anvil.rpcUrl, '--deployment', deployment],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...NO_ENV } })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d })
    const closed = once(child, 'close')
    await waitFor(() => existsSync(out), { what: 'the --out folder', timeoutMs: 30_000 })
    child.kill('SIGINT')
    const [code] = await closed as [number | null]
    expect(code).toBe(130)
    expect(JSON.parse(stdout)).toEqual({ error: { name: 'InterruptedError', message: 'interrupted (SIGINT)', signal: 'SIGINT' } })
    expect(existsSync(join(dir, 'made'))).toBe(false)
  }, 60_000)

  it('a deployment whose escrow address holds no JobEscrow: EscrowNotFoundError in one line, not an undecodable result', async () => {
    chain = await startChain({ accounts: 2 })
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-dapp-escrow-'))
    const { deployment, anvil } = chain
    for (const [address, why] of [[anvil.accounts[0].address, 'there is no contract at that address'], [deployment.nodeRegistry, 'the contract there is not a JobEscrow']] as const) {
      const file = join(dir, `deployment-${address}.json`)
      await writeFile(file, serializeDeployment({ ...deployment, jobEscrow: address }))
      const r = await jobmeshDapp(['status', `0x${'1'.repeat(64)}`, '--rpc', anvil.rpcUrl, '--deployment', file],
        { JOBMESH_PRIVATE_KEY: anvil.accounts[1].privateKey })
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr.trim()).toBe(`EscrowNotFoundError: no JobEscrow contract answers at ${address} on chain ${anvil.chainId}: ${why} ` +
        '(is the deployment file the one of this chain\'s jobmesh contracts?)')
    }
  }, 60_000)
})
