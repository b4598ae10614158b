import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { createProvider, deploy, serializeDeployment } from '@jobmesh/contracts'
import { waitFor } from '@jobmesh/testkit'
import { workerAnvil } from '@jobmesh/testkit/anvil'
import { Wallet } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI_BIN } from '../../src/devnet/index.js'
import type { ChildProcess } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import type { Anvil } from '@jobmesh/contracts'

interface Cli {
  child: ChildProcess
  lines: string[]
  stdout: string[]
  stderr: string[]
  /** Exit code; null when a signal killed it. */
  exited: Promise<number | null>
}

function jobmesh (args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, [CLI_BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, JOBMESH_RPC_URL: '', JOBMESH_BOOTSTRAP: '', ...env } })
  const cli: Cli = { child, lines: [], stdout: [], stderr: [], exited: once(child, 'exit').then(([code]) => code as number | null) }
  createInterface({ input: child.stdout }).on('line', l => { cli.stdout.push(l); cli.lines.push(l) })
  createInterface({ input: child.stderr }).on('line', l => { cli.stderr.push(l); cli.lines.push(l) })
  return cli
}

/** The exit code once the process has ended and its output is read to the end ('close'), within `timeoutMs`. */
async function closed (cli: Cli, timeoutMs = 30_000): Promise<number | null> {
  const [code] = await once(cli.child, 'close', { signal: AbortSignal.timeout(timeoutMs) }) as [number | null]
  return code
}

async function line (cli: Cli, re: RegExp, timeoutMs = 30_000): Promise<void> {
  await waitFor(() => cli.lines.some(l => re.test(l)), { what: `a line matching ${re} (so far: ${cli.lines.join(' | ')})`, timeoutMs })
}

/** Deploys the contracts on `anvil` and writes the deployment and account 1's key under `dir`: `jobmesh start`'s chain flags. */
async function chainFlags (dir: string, anvil: Anvil, provider: ReturnType<typeof createProvider>): Promise<string[]> {
  const deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider))
  await writeFile(join(dir, 'deployment.json'), serializeDeployment(deployment))
  await writeFile(join(dir, 'wallet.key'), anvil.accounts[1].privateKey)
  return ['--rpc', anvil.rpcUrl, '--deployment', join(dir, 'deployment.json'), '--key-file', join(dir, 'wallet.key'), '--vram', '8']
}

/** Runs `fn` with an anvil of its own (its mining may be switched off) and its provider, both stopped after. */
async function withOwnAnvil (fn: (anvil: Anvil, provider: ReturnType<typeof createProvider>) => Promise<void>): Promise<void> {
  const anvil: Anvil = await workerAnvil({ accounts: 2, args: [] })
  const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
  try {
    await fn(anvil, provider)
  } finally {
    provider.destroy()
    await anvil.stop()
  }
}

describe('Ctrl-C before ready stops what was started, says so and exits 130', () => {
  const running: Cli[] = []
  let dir = ''

  afterEach(async () => {
    for (const cli of running.splice(0)) {
      if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL')
      await cli.exited
    }
    if (dir !== '') await rm(dir, { recursive: true, force: true })
    dir = ''
  })

  it('jobmesh: interrupted while the CLI still loads, it says nothing was started and exits 130 (it died of the signal, silent)', async () => {
    const slow = new URL('./fixtures/slow-program.mjs', import.meta.url).href
    const cli = jobmesh(['start', '--data-dir', join(tmpdir(), 'jobmesh-never-made'), '--json'], { NODE_OPTIONS: `--import ${slow}` })
    running.push(cli)
    await line(cli, /^test: holding the load of program\.js$/)
    cli.child.kill('SIGINT')
    expect(await closed(cli)).toBe(130)
    expect(cli.stderr).toContain('interrupted: nothing was started')
    expect(JSON.parse(cli.stdout.join('\n')).error).toMatchObject({ name: 'InterruptedError', signal: 'SIGINT' })
    expect(existsSync(join(tmpdir(), 'jobmesh-never-made'))).toBe(false)
  })

  it('jobmesh status: a Ctrl-C that comes while the program evaluates (no turn of the event loop) is not lost when the command begins', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-held-interrupt-'))
    const release = join(dir, 'release')
    const slow = new URL('./fixtures/slow-program.mjs', import.meta.url).href
    const cli = jobmesh(['status', '--data-dir', join(dir, 'no-peer')], { NODE_OPTIONS: `--import ${slow}`, JOBMESH_TEST_HOLD_UNTIL: release })
    running.push(cli)
    await line(cli, /^test: holding the load of program\.js$/)
    cli.child.kill('SIGINT')
    await writeFile(release, '')
    // not dropped as the loading handler goes (the command would then say that no peer runs there, and exit 1)
    expect(await closed(cli), cli.lines.join('\n')).toBe(130)
    expect(cli.stderr).toContain('interrupted: nothing was started')
  })

  it('jobmesh start: interrupted while the peer starts; after ready it still stops cleanly with 0', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-start-interrupt-'))
    const dataDir = join(dir, 'peer')
    const early = jobmesh(['start', '--data-dir', dataDir, '--listen', '/ip4/127.0.0.1/tcp/0'])
    running.push(early)
    await line(early, /^starting jobmesh peer/)
    early.child.kill('SIGINT')
    // it ends by itself: a libp2p node, a store or a socket left open would keep it running
    expect(await early.exited).toBe(130)
    expect(early.stderr).toContain('interrupted before the peer was ready: stopped')
    expect(early.stdout).not.toContain('ready (Ctrl-C to stop)')
    expect(existsSync(join(dataDir, 'control.sock'))).toBe(false)

    // the data dir is free again; Ctrl-C after ready is the clean stop it was
    const late = jobmesh(['start', '--data-dir', dataDir, '--listen', '/ip4/127.0.0.1/tcp/0'])
    running.push(late)
    await line(late, /^ready/)
    late.child.kill('SIGINT')
    expect(await late.exited).toBe(0)
    expect(late.stdout.slice(-2)).toEqual(['stopping...', 'stopped'])
  })

  it('jobmesh start: a busy --http port refuses it before any transaction; status says it is starting while its registration waits for a block that does not come; interrupted then', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-start-interrupt-chain-'))
    // an anvil of its own: its mining is switched off below
    await withOwnAnvil(async (anvil, provider) => {
      const chain = await chainFlags(dir, anvil, provider)
      await provider.send('evm_setAutomine', [false])
      const wallet = anvil.accounts[1].address
      // a dashboard port in use refuses the start before any transaction (it registered and staked, then failed)
      const busy = createServer()
      await new Promise<void>(resolve => busy.listen(0, '127.0.0.1', resolve))
      try {
        const port = (busy.address() as AddressInfo).port
        const refused = jobmesh(['start', '--data-dir', join(dir, 'refused'), '--listen', '/ip4/127.0.0.1/tcp/0', '--http', `127.0.0.1:${port}`, ...chain])
        expect(await closed(refused)).toBe(1)
        expect(refused.stderr).toContain(`error: cannot serve the dashboard (--http) on 127.0.0.1:${port}: the address is in use`)
        expect(await provider.getTransactionCount(wallet, 'pending')).toBe(0)
      } finally {
        await new Promise(resolve => busy.close(resolve))
      }
      // an RPC endpoint that does not answer, or a deployment of another chain: refused before the data dir is made
      const unreachable = chain.map(a => a === anvil.rpcUrl ? 'http://127.0.0.1:1' : a)
      const deploymentFile = chain[chain.indexOf('--deployment') + 1]
      await writeFile(join(dir, 'amoy.json'), (await readFile(deploymentFile, 'utf8')).replace(`"chainId": ${anvil.chainId}`, '"chainId": 80002'))
      const otherChain = chain.map(a => a === deploymentFile ? join(dir, 'amoy.json') : a)
      for (const [flags, error] of [[unreachable, /^error: .*http:\/\/127\.0\.0\.1:1/], [otherChain, /^error: the deployment is for chain 80002, the provider is on chain 31337: --rpc and --deployment name different networks$/]] as const) {
        const refusedChain = jobmesh(['start', '--data-dir', join(dir, 'never'), '--listen', '/ip4/127.0.0.1/tcp/0', ...flags])
        expect(await closed(refusedChain)).toBe(1)
        expect(refusedChain.stderr.some(l => error.test(l)), refusedChain.stderr.join('\n')).toBe(true)
        expect(existsSync(join(dir, 'never'))).toBe(false)
      }
      // a port free now, for its dashboard
      const probe = createServer()
      await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve))
      const httpPort = (probe.address() as AddressInfo).port
      await new Promise(resolve => probe.close(resolve))
      const cli = jobmesh(['start', '--data-dir', join(dir, 'peer'), '--listen', '/ip4/127.0.0.1/tcp/0', '--http', `127.0.0.1:${httpPort}`, ...chain])
      running.push(cli)
      // its first transaction is sent and waits for a block
      await waitFor(async () => await provider.getTransactionCount(wallet, 'pending') > 0,
        { what: 'the peer\'s first transaction pending', timeoutMs: 30_000 }).catch((err: Error) => { throw new Error(`${err.message}: ${cli.lines.join(' | ')}`) })
      // its dashboard's address, taken already, says the peer is starting (a request hung unanswered)
      const early = await fetch(`http://127.0.0.1:${httpPort}/`, { signal: AbortSignal.timeout(10_000) })
      expect([early.status, await early.text()]).toEqual([503, 'the peer is starting\n'])
      // meanwhile status says it is starting (it said no peer was running), for a person and for a script
      const status = jobmesh(['status', '--data-dir', join(dir, 'peer')])
      expect(await closed(status)).toBe(1)
      expect(status.stderr[0]).toMatch(new RegExp(`^error: the jobmesh peer on ${join(dir, 'peer')} \\(pid ${cli.child.pid}\\) is starting \\(for \\d+ s: joining the chain and the network\\), not ready yet: ask again in a few seconds$`))
      const json = jobmesh(['status', '--data-dir', join(dir, 'peer'), '--json'])
      expect(await closed(json)).toBe(1)
      expect(JSON.parse(json.stdout.join('\n')).error.name).toBe('PeerStartingError')
      // and a second start on its data dir is refused as such, before it asks the chain anything (an RPC that does not
      // answer here: it was refused for that)
      const second = jobmesh(['start', '--data-dir', join(dir, 'peer'), '--listen', '/ip4/127.0.0.1/tcp/0', ...unreachable])
      expect(await closed(second)).toBe(1)
      expect(second.stderr).toContain(`error: another jobmesh peer is running on ${join(dir, 'peer')}`)
      cli.child.kill('SIGINT')
      // it stops without waiting for that block (the transaction's wait is a minute and more)
      const code = await waitFor(async () => cli.child.exitCode ?? undefined, { what: 'the peer to exit after Ctrl-C', timeoutMs: 15_000 })
      expect(code).toBe(130)
      expect(cli.stderr).toContain('interrupted before the peer was ready: stopped')
      expect(cli.stdout).not.toContain('ready (Ctrl-C to stop)')
    })
  })

  it('jobmesh start: with the chain gone, status says so, and a stop that cannot take the node out of the verifier draw says so', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-stop-no-chain-'))
    // an anvil of its own, stopped below
    await withOwnAnvil(async (anvil, provider) => {
      const cli = jobmesh(['start', '--data-dir', join(dir, 'peer'), '--listen', '/ip4/127.0.0.1/tcp/0', ...await chainFlags(dir, anvil, provider)])
      running.push(cli)
      await line(cli, /^ready/, 60_000)
      await anvil.stop()
      // status says the chain is away instead of leaving the wallet's standing out
      const status = jobmesh(['status', '--data-dir', join(dir, 'peer')])
      expect(await closed(status)).toBe(0)
      expect(status.stdout).toContain(`wallet    ${anvil.accounts[1].address} (its standing unknown: the chain could not be read)`)
      expect(status.stdout.find(l => l.startsWith('chain     '))).toMatch(/unreachable|ECONNREFUSED/i)
      cli.child.kill('SIGINT')
      expect(await closed(cli)).toBe(0)
      expect(cli.stderr.join('\n')).toMatch(/error could not take this node out of the verifier draw as it stops .*start it again soon/)
      expect(cli.stdout.slice(-1)).toEqual(['stopped'])
    })
  }, 90_000)

  it('jobmesh start: a second Ctrl-C while the stop waits to leave the verifier draw ends it at once and says what that risks', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-stop-twice-'))
    // an anvil of its own: its mining is switched off below
    await withOwnAnvil(async (anvil, provider) => {
      const cli = jobmesh(['start', '--data-dir', join(dir, 'peer'), '--listen', '/ip4/127.0.0.1/tcp/0', ...await chainFlags(dir, anvil, provider)])
      running.push(cli)
      await line(cli, /^ready/, 60_000)
      // the stop's pause (out of the draw) is sent and waits for a block that does not come
      await provider.send('evm_setAutomine', [false])
      const sent = await provider.getTransactionCount(anvil.accounts[1].address, 'pending')
      cli.child.kill('SIGINT')
      await line(cli, /^stopping\.\.\.$/)
      await waitFor(async () => await provider.getTransactionCount(anvil.accounts[1].address, 'pending') > sent,
        { what: 'the stop\'s pause pending', timeoutMs: 30_000 })
      cli.child.kill('SIGINT')
      expect(await closed(cli, 15_000)).toBe(130)
      expect(cli.stderr.join('\n')).toMatch(/^stopped at once \(a second signal\): the stop was cut short; .*verifier draw.*start it again soon$/m)
      expect(cli.stdout).not.toContain('stopped')
    })
  }, 90_000)

  it('jobmesh devnet: interrupted while it deploys or starts its peers', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-devnet-interrupt-'))
    // without --dir: its data goes in a temp dir of its own (here under `dir`), removed when it stops
    const devnet = jobmesh(['devnet', '--peers', '2', '--no-http'], { TMPDIR: dir })
    running.push(devnet)
    await line(devnet, /^ {2}contracts/)
    expect((await readdir(dir)).filter(n => n.startsWith('jobmesh-devnet-'))).toHaveLength(1)
    devnet.child.kill('SIGINT')
    expect(await devnet.exited).toBe(130)
    expect(devnet.stderr).toContain('interrupted before the devnet was ready: stopped')
    expect(devnet.stdout).not.toContain('running (Ctrl-C to stop)')
    expect((await readdir(dir)).filter(n => n.startsWith('jobmesh-devnet-'))).toEqual([])
  })
})
