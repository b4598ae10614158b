import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { serializeDeployment } from '@jobmesh/contracts'
import { Wallet, id, toQuantity } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { REPLICATION_PROTOCOL } from '@jobmesh/peer/replication'
import { run } from '../src/cli/program.js'
import { DEFAULT_PRICING, taskValue } from '../src/index.js'
import { plural, weiPerSecond } from '../src/cli/text.js'
import { ether, secondsToMs } from '../src/cli/options.js'
import { DEFAULT_REPLICATION_TIMEOUT_MS } from '../src/constants.js'
import { formatStory } from '../src/cli/describe-command.js'
import { capture, cleanup, lieAboutHolding, registerNode, serveInputs, setup, smallJob } from './helpers.js'
import type { Env } from './helpers.js'
import type { Stream } from '@libp2p/interface'

afterEach(cleanup)

/** The small job's code and data, a key file of `privateKey` and the deployment file, written in the env's dir. */
async function jobFiles (env: Env, privateKey: string): Promise<{ code: string, data: string, key: string, deployment: string }> {
  const { code, data } = smallJob()
  const files = { code: join(env.dir, 'job.wasm'), data: join(env.dir, 'data.bin'), key: join(env.dir, 'key'), deployment: join(env.dir, 'deployment.json') }
  await writeFile(files.code, code)
  await writeFile(files.data, data)
  await writeFile(files.key, `${privateKey}\n`)
  await writeFile(files.deployment, serializeDeployment(env.deployment))
  return files
}

describe('jobmesh-dapp', () => {
  it('--version prints the version of @jobmesh/dapp-sdk', async () => {
    const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    for (const flag of ['--version', '-V']) {
      const io = capture()
      expect(await run([flag], io)).toBe(0)
      expect(io.stdout).toEqual([manifest.version])
      expect(io.stderr).toEqual([])
    }
  })

  it('exits with 2 and a clear message on bad flags', async () => {
    const io = capture()
    expect(await run(['submit', '--code', 'a.wasm', '--data', 'd.bin', '--macro-jobs', 'two', '--micro-per-macro', '1',
      '--blocks-per-micro', '1', '--block-size', '4', '--price', '0.1', '--deployment', 'd.json'], io)).toBe(2)
    expect(io.stderr.join('\n')).toMatch(/--macro-jobs.*positive integer/)
    const bound = capture()
    expect(await run(['submit', '--code', 'a.wasm', '--data', 'd.bin', '--macro-jobs', '2', '--micro-per-macro', '1',
      '--blocks-per-micro', '1', '--block-size', '4', '--price', '0.1', '--max-output', '1.5', '--deployment', 'd.json'], bound)).toBe(2)
    expect(bound.stderr.join('\n')).toMatch(/--max-output.*positive integer/)
    const estimate = capture()
    expect(await run(['submit', '--code', 'a.wasm', '--data', 'd.bin', '--macro-jobs', '2', '--micro-per-macro', '1',
      '--blocks-per-micro', '1', '--block-size', '4', '--price', '0.1', '--seconds-per-micro', '0', '--deployment', 'd.json'], estimate)).toBe(2)
    expect(estimate.stderr.join('\n')).toMatch(/--seconds-per-micro.*positive integer/)

    const io2 = capture()
    expect(await run(['status', 'not-a-job-id', '--deployment', 'd.json'], io2)).toBe(2)
    expect(io2.stderr.join('\n')).toMatch(/job id/)

    const io3 = capture()
    expect(await run(['results', '0x' + '1'.repeat(64), '--deployment', 'd.json'], io3)).toBe(2)
    expect(io3.stderr.join('\n')).toMatch(/--out/)
    // an --out under /proc is refused before any mkdir (Node's mkdir -p spins there for minutes)
    const proc = capture()
    expect(await run(['results', '0x' + '1'.repeat(64), '--out', '/proc/jobmesh-test', '--deployment', 'd.json'], proc)).toBe(2)
    expect(proc.stderr.join('\n')).toContain('--out /proc/jobmesh-test: it is on /proc, the kernel\'s own file system: not a place for outputs')

    expect(await run(['frobnicate'], capture())).toBe(2)

    // with --json a usage error is one JSON document on stdout as well, like every other failure
    const json = capture()
    expect(await run(['wait', '0x' + '1'.repeat(64), '--json', '--timeout', 'soon', '--deployment', 'd.json'], json)).toBe(2)
    expect(json.stdout).toHaveLength(1)
    const { error } = JSON.parse(json.stdout[0]) as { error: { name: string, code: string, message: string } }
    expect(error.name).toBe('UsageError')
    expect(error.code).toBe('commander.invalidArgument')
    expect(error.message).toMatch(/--timeout/)

    // an RPC endpoint that is not an http(s) URL is bad usage, from the flag or from its variable
    for (const rpc of ['notaurl', 'ftp://127.0.0.1:8545', 'ws://127.0.0.1:8545']) {
      const io4 = capture()
      expect(await run(['status', '0x' + '1'.repeat(64), '--rpc', rpc, '--deployment', 'd.json'], io4)).toBe(2)
      expect(io4.stderr.join('\n')).toContain(`--rpc <url>' argument '${rpc}' is invalid. expected an http:// or https:// URL`)
    }
    const saved = process.env.JOBMESH_RPC_URL
    process.env.JOBMESH_RPC_URL = 'notaurl'
    try {
      const io5 = capture()
      expect(await run(['status', '0x' + '1'.repeat(64), '--deployment', 'd.json'], io5)).toBe(2)
      expect(io5.stderr.join('\n')).toMatch(/expected an http:\/\/ or https:\/\/ URL/)
    } finally {
      if (saved === undefined) delete process.env.JOBMESH_RPC_URL
      else process.env.JOBMESH_RPC_URL = saved
    }
  })

  it('counts and prices in plain words', () => {
    expect(['0 peers', '1 peer', '2 peers']).toEqual([0, 1, 2].map(n => plural(n, 'peer', 'peers')))
    expect(weiPerSecond(16129032258n)).toBe('16129032258 wei/s (16.129032258 gwei/s)')
    expect(weiPerSecond(7n)).toBe('7 wei/s (0.000000007 gwei/s)')
    expect(weiPerSecond(3n * 10n ** 18n)).toBe('3000000000000000000 wei/s (3000000000.0 gwei/s)')
  })

  it('reads an amount in ether to the wei; one finer than a wei says so, not that it is not positive', () => {
    expect(['0.01', '1', '0.000000000000000001'].map(ether)).toEqual([10n ** 16n, 10n ** 18n, 1n])
    expect(() => ether('0.0000000000000000001')).toThrow('expected at most 18 decimals (1 wei is 0.000000000000000001 ETH)')
    for (const bad of ['0', '-1', 'abc', '1e3', '']) expect(() => ether(bad)).toThrow('expected a positive amount in ether, e.g. 0.01')
  })

  it('reads --poll in seconds, fractions allowed', async () => {
    expect(['2', '0.5', '.25', '1.5', '0.1'].map(secondsToMs)).toEqual([2000, 500, 250, 1500, 100])
    // faster than 10 reads a second is refused: it would flood the endpoint
    expect(() => secondsToMs('0.001')).toThrow('expected at least 0.1 s between two reads')
    for (const bad of ['0', '-1', 'abc', '1e3', '']) {
      const io = capture()
      expect(await run(['wait', '0x' + '1'.repeat(64), '--poll', bad, '--deployment', 'd.json'], io)).toBe(2)
      expect(io.stderr.join('\n')).toContain('expected a positive number of seconds')
    }
    const help = capture()
    expect(await run(['wait', '--help'], help)).toBe(0)
    expect(help.stdout.join('\n')).toMatch(/--poll <s>\s+seconds between two status reads/)
    // a -- in front of the command, as npx jobmesh-dapp -- wait --help passes it on: the same help
    const separated = capture()
    expect(await run(['--', 'wait', '--help'], separated)).toBe(0)
    expect(separated.stdout).toEqual(help.stdout)
  })

  it('submits a job from files and shows its status', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const files = {
      code: join(env.dir, 'job.wasm'), data: join(env.dir, 'data.bin'), key: join(env.dir, 'key'), deployment: join(env.dir, 'deployment.json'),
      model: join(env.dir, 'model.bin')
    }
    await writeFile(files.model, 'the weights of a tiny model')
    await writeFile(files.code, code)
    await writeFile(files.data, data)
    await writeFile(files.key, `${env.anvil.accounts[2].privateKey}\n`)
    await writeFile(files.deployment, serializeDeployment(env.deployment))
    const connect = ['--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment]
    const io = capture()
    const code0 = await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
      '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--model', files.model, '--seconds-per-micro', '20', '--detach', '--timeout', '2', '--force', ...connect], io)
    // no peer runs, so none can hold the inputs (--force pays anyway): a detached submit does not walk away from a job nobody can start
    expect(code0).toBe(1)
    expect(io.stderr.join('\n')).toMatch(/InputsNotHeldError: job 0x[0-9a-f]{64} is funded and announced, but no peer confirmed it holds the job's code and data within 2 s/)
    expect(io.stdout.join('\n')).not.toMatch(/detached/)
    // the task value from the network's pricing (deployment defaults): 0.001 ETH over 4 MicroJobs
    const value = taskValue(10n ** 15n, 4, DEFAULT_PRICING)
    expect(value).toBe(29411764705882n)
    // the exact wei and the same in gwei, in plain notation (no exponent)
    expect(io.stdout).toContain('task value: 29411764705882 wei/s (29411.764705882 gwei/s)')
    expect(io.stdout).toContain('inputs held by: 0 peers')
    // no node is registered: a job with k = 3 can never be released, and submit says so
    expect(io.stderr.join('\n')).toMatch(/warning: 0 nodes are active \(registered, not paused, exiting nor kicked out\), this job with 3 verifiers needs 4/)
    const jobId = /jobId: (0x[0-9a-f]{64})/.exec(io.stdout.join('\n'))?.[1]
    expect(jobId).toBeDefined()
    // the run-time estimate reached the job: the peers' run limit and the commit window follow it
    expect(Number((await env.contracts(0).jobEscrow.jobs(jobId!)).secondsPerMicroJob)).toBe(20)
    // the model file was uploaded and named in the job by its CID
    expect(io.stdout.join('\n')).toMatch(/^model: ipfs:\/\/baf[a-z2-7]+$/m)

    const io2 = capture()
    expect(await run(['status', jobId!, ...connect], io2)).toBe(0)
    // the escrow cannot tell a job worked on from one its peers gave up: status says where to look
    expect(io2.stdout).toContain(`status: Open (the escrow's word: jobmesh-dapp describe ${jobId} says whether the peers work on it or gave it up)`)
    expect(io2.stdout).toContain('microJobs: 4')
    const listed = capture()
    expect(await run(['list', ...connect], listed)).toBe(0)
    expect(listed.stdout.at(-1)).toBe('Open: the escrow\'s word; jobmesh-dapp describe <job> says whether the peers work on it or gave it up (its code fails)')

    // describe, like status, fails on a job the escrow does not know
    const unknown = '0x' + 'ab'.repeat(32)
    for (const cmd of ['status', 'describe']) {
      const io9 = capture()
      expect(await run([cmd, unknown, ...connect], io9)).toBe(1)
      expect(io9.stderr).toEqual([`JobNotFoundError: the escrow has no job ${unknown}`])
      expect(io9.stdout).toEqual([])
      // with --json the error document names the job the command was given
      const json = capture()
      expect(await run([cmd, unknown, '--json', ...connect], json)).toBe(1)
      expect(JSON.parse(json.stdout.at(-1) ?? '{}')).toEqual({ error: { name: 'JobNotFoundError', message: `the escrow has no job ${unknown}`, jobId: unknown } })
    }

    // reading needs no key (anyone given the jobId follows the job), paying does; a results that fails leaves no folder
    const reader = ['--rpc', env.anvil.rpcUrl, '--deployment', files.deployment, '--private-key', '']
    const io10 = capture()
    expect(await run(['status', jobId!, ...reader], io10)).toBe(0)
    expect(io10.stdout.some(l => l.startsWith('status: Open ('))).toBe(true)
    const io11 = capture()
    expect(await run(['describe', jobId!, '--json', ...reader], io11)).toBe(0)
    expect(JSON.parse(io11.stdout.join(''))).toMatchObject({ jobId, phase: 'open' })
    const io12 = capture()
    expect(await run(['refund', jobId!, ...reader], io12)).toBe(2)
    expect(io12.stderr).toEqual([expect.stringMatching(/^InvalidConfigError: a private key is required: --key-file <file> or JOBMESH_PRIVATE_KEY/)])
    // a key that is not one is said to be malformed, not missing, and nothing is sent
    const io12b = capture()
    expect(await run(['refund', jobId!, '--rpc', env.anvil.rpcUrl, '--deployment', files.deployment, '--private-key', '0x1234'], io12b)).toBe(2)
    expect(io12b.stderr).toEqual(['InvalidConfigError: the private key given (JOBMESH_PRIVATE_KEY or --private-key) is not 32 bytes of hex (64 hex digits, 0x optional)'])
    const io13 = capture()
    const out = join(env.dir, 'results', 'of', 'nothing')
    expect(await run(['results', unknown, '--out', out, '--timeout', '5', ...reader], io13)).toBe(1)
    expect(io13.stderr).toEqual([`JobNotFoundError: the escrow has no job ${unknown}`])
    expect(existsSync(join(env.dir, 'results'))).toBe(false)

    // a --bootstrap that looks like a multiaddr but does not parse, names no peer, or names it by something that is
    // not a peer id (accepted, then "Incorrect length" from libp2p) is bad usage too: one line, no stack
    const notPeerId = (id: string): RegExp => new RegExp(`^InvalidMultiaddrError: bootstrap address /ip4/127\\.0\\.0\\.1/tcp/33711/p2p/${id}: its /p2p part "${id}" is not a peer id`)
    for (const [command, addr, why] of [['status', '/ip4/127.0.0.1/tcp/abc', /InvalidMultiaddrError: bad bootstrap multiaddr "\/ip4\/127.0.0.1\/tcp\/abc"/],
      ['status', '/ip4/127.0.0.1/tcp/4001', /InvalidMultiaddrError: bootstrap address \/ip4\/127.0.0.1\/tcp\/4001 lacks \/p2p\/<peerId>/],
      ['status', '/ip4/127.0.0.1/tcp/33711/p2p/notapeerid', notPeerId('notapeerid')],
      ['describe', '/ip4/127.0.0.1/tcp/33711/p2p/QmFoo', notPeerId('QmFoo')]] as const) {
      const io7 = capture()
      expect(await run([command, jobId!, ...connect, '--bootstrap', addr], io7), io7.stderr.join('\n')).toBe(2)
      expect(io7.stderr).toHaveLength(1)
      expect(io7.stderr[0]).toMatch(why)
      expect(io7.stderr[0]).not.toContain('\n')
    }

    // the variables `jobmesh devnet` prints stand in for the flags; --json everywhere
    const saved = { ...process.env }
    Object.assign(process.env, {
      JOBMESH_RPC_URL: env.anvil.rpcUrl, JOBMESH_DEPLOYMENT: files.deployment, JOBMESH_PRIVATE_KEY: env.anvil.accounts[2].privateKey
    })
    try {
      const io4 = capture()
      expect(await run(['status', jobId!, '--json'], io4)).toBe(0)
      expect(JSON.parse(io4.stdout.join(''))).toMatchObject({ jobId, status: 'Open', k: 3 })
      const io5 = capture()
      expect(await run(['list', '--json'], io5)).toBe(0)
      const listed = JSON.parse(io5.stdout.join('')) as Array<{ jobId: string, status: string, creator: string }>
      expect(listed.map(j => j.jobId)).toContain(jobId)
      expect(listed.every(j => j.creator.toLowerCase() === env.anvil.accounts[2].address.toLowerCase())).toBe(true)
      // as text: one aligned table (its columns shifted with the fees' widths)
      const text = capture()
      expect(await run(['list'], text)).toBe(0)
      expect(text.stdout[0]).toMatch(/^job +status +fee +MicroJobs +deadline$/)
      const row = text.stdout.find(l => l.startsWith(jobId!)) ?? ''
      expect(row).toMatch(/^0x[0-9a-f]{64} +Open +0\.001 ETH +4 +\S+Z$/)
      expect(row.indexOf('ETH')).toBe(text.stdout[0].indexOf('fee') + '0.001 '.length)
      // before the deadline a refund is refused with the decoded error
      const io6 = capture()
      expect(await run(['refund', jobId!], io6)).toBe(1)
      // ... which names the deadline (ISO, UTC) and the time left (deadline: 1440 min after the submission)
      const deadline = (JSON.parse(io4.stdout.join('')) as { deadline: number }).deadline
      const iso = new Date(deadline * 1000).toISOString().replace(/\.000Z$/, 'Z')
      expect(io6.stderr).toEqual([expect.stringMatching(new RegExp(`^ChainRevertError: job ${jobId!} can be refunded only after its deadline ${iso}: ` +
        '(23 h \\d+ min|1 d 0 h) left by the chain\'s clock \\(JobEscrow\\.refund reverted: DeadlineNotReached\\)$'))])
    } finally {
      for (const k of ['JOBMESH_RPC_URL', 'JOBMESH_DEPLOYMENT', 'JOBMESH_PRIVATE_KEY']) {
        if (saved[k] === undefined) delete process.env[k]
        else process.env[k] = saved[k]
      }
    }

    // an invalid job is a usage error listing the fields
    const io3 = capture()
    expect(await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '3', '--micro-per-macro', '2',
      '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--detach', ...connect], io3)).toBe(2)
    // in plain words, with what would fit; and no warning about the small network for a job that was refused
    expect(io3.stderr).toEqual(['invalid job:', '  slicing: the slicing (3 MacroJobs x 2 MicroJobs x 2 blocks) needs 11 to 12 blocks ' +
      '(only the last MicroJob may be shorter), but the data has 8 blocks of 4 bytes; what fits: 4 MicroJobs of 2 blocks (MacroJobs x MicroJobs per MacroJob = 4)'])
    const rows = join(env.dir, 'rows.bin')
    await writeFile(rows, new Uint8Array(96 * 64))
    const io8 = capture()
    expect(await run(['submit', '--code', files.code, '--data', rows, '--macro-jobs', '2', '--micro-per-macro', '16',
      '--blocks-per-micro', '4', '--block-size', '64', '--price', '0.001', '--detach', ...connect], io8)).toBe(2)
    expect(io8.stderr).toEqual(['invalid job:', '  slicing: the slicing (2 MacroJobs x 16 MicroJobs x 4 blocks) needs 125 to 128 blocks ' +
      '(only the last MicroJob may be shorter), but the data has 96 blocks of 64 bytes; what fits: 24 MicroJobs of 4 blocks (2 MacroJobs x 12), or 32 MicroJobs of 3 blocks'])
  })

  it('refuses to pay for a job no connected peer can hold (its bootstrap peer does not answer), before any upload (--force pays: above)', async () => {
    const env = await setup()
    const files = await jobFiles(env, env.anvil.accounts[2].privateKey)
    // a bootstrap address where nobody listens
    const dead = `/ip4/127.0.0.1/tcp/1/p2p/${env.peer.peerId.toString()}`
    const io = capture()
    expect(await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
      '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--detach', '--timeout', '10',
      '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment, '--bootstrap', dead], io)).toBe(1)
    expect(io.stderr[0]).toBe(`warning: no bootstrap peer answered (${dead}): is the network running? jobmesh devnet prints JOBMESH_BOOTSTRAP`)
    expect(io.stderr.at(-1)).toBe('NoPeerConnectedError: no peer can hold this job\'s code and data: no peer is connected. Funded, the job would wait ' +
      'for its deadline with nobody to run it, so nothing was uploaded or paid; check that peers run and are reachable (the bootstrap addresses) ' +
      '(--bootstrap, JOBMESH_BOOTSTRAP; jobmesh devnet prints it). --force submits anyway: the fee is then locked until the deadline unless a peer takes the job')
    expect(io.stderr.join('\n')).not.toMatch(/uploading|creating/)
    expect(io.stdout.join('\n')).not.toMatch(/jobId/)
    expect(await env.provider.getTransactionCount(env.anvil.accounts[2].address)).toBe(0)
    const help = capture()
    expect(await run(['submit', '--help'], help)).toBe(0)
    expect(help.stdout.join('\n')).toMatch(/--force\s+submit and pay even when no/)
  }, 60_000)

  it('refuses to pay for a job the network cannot finish (no node is registered: k + 1 = 4 needed), after a peer answered and before any upload', async () => {
    const env = await setup()
    const files = await jobFiles(env, env.anvil.accounts[2].privateKey)
    // a peer that could hold the inputs (submit's first check passes)
    const server = await serveInputs(env.peer)
    try {
      const peerAddress = env.peer.libp2p.getMultiaddrs().find(m => !m.toString().includes('/ws'))?.toString() ?? ''
      const io = capture()
      expect(await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
        '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--detach', '--timeout', '10',
        '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment, '--bootstrap', peerAddress], io)).toBe(1)
      expect(io.stderr.at(-1)).toBe('JobCannotFinishError: 0 nodes are active (registered, not paused, exiting nor kicked out), this job with 3 verifiers needs 4 ' +
        '(its submitter cannot verify it). Nothing was uploaded or paid. --force submits anyway: the fee is then locked until the deadline unless the network changes')
      expect(io.stderr.join('\n')).not.toMatch(/uploading|creating|warning/)
      expect(io.stdout.join('\n')).not.toMatch(/jobId/)
      expect(await env.provider.getTransactionCount(env.anvil.accounts[2].address)).toBe(0)
      // not detached, with an --out of new folders: refused the same, and the folders it made for the outputs are gone
      const out = join(env.dir, 'new', 'results')
      const followed = capture()
      expect(await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
        '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--out', out,
        '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment, '--bootstrap', peerAddress], followed)).toBe(1)
      expect(followed.stderr.at(-1)).toMatch(/^JobCannotFinishError: /)
      expect(existsSync(join(env.dir, 'new'))).toBe(false)
      // an invalid job is still said to be invalid first
      const bad = capture()
      expect(await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
        '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '4', '--detach',
        '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment, '--bootstrap', peerAddress], bad)).toBe(2)
      expect(bad.stderr.join('\n')).toMatch(/invalid job:/)
    } finally {
      await server.stop()
    }
  }, 60_000)

  it('--detach with only a registered liar: the CLI says it did not prove it holds the inputs, and exits 1 (InputsNotHeldError)', async () => {
    const env = await setup()
    const files = await jobFiles(env, env.anvil.accounts[2].privateKey)
    const liar = await lieAboutHolding(env.peer)
    await registerNode(env, 5, id('any-gpu'), 8, env.deployment.params.registry.minStake, env.peer.privateKey)
    try {
      const peerAddress = env.peer.libp2p.getMultiaddrs().find(m => !m.toString().includes('/ws'))?.toString() ?? ''
      const io = capture()
      // --force: one registered node is fewer than k + 1 = 4 active ones
      expect(await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
        '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--detach', '--force', '--timeout', '8',
        '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment, '--bootstrap', peerAddress], io)).toBe(1)
      const liarId = env.peer.peerId.toString()
      expect(io.stdout).toContain('inputs held by: 0 peers')
      expect(io.stdout.find(l => l.startsWith('said they hold the inputs, did not prove it: '))).toMatch(
        new RegExp(`^said they hold the inputs, did not prove it: 1 peer: HoldProofFailedError: ${liarId} did not answer a challenge over \\d+ blocks within 5000 ms$`))
      expect(io.stderr.at(-1)).toMatch(/^InputsNotHeldError: job 0x[0-9a-f]{64} is funded and announced, but no peer confirmed it holds/)
      expect(io.stderr.at(-1)).toContain(`peers that said they hold them did not prove it (1 peer: HoldProofFailedError: ${liarId}`)
    } finally {
      await liar.stop()
    }
  }, 60_000)

  it('a submit whose --timeout runs out while it follows the job says the job is funded and goes on, and how to follow it', async () => {
    const env = await setup()
    const files = await jobFiles(env, env.anvil.accounts[2].privateKey)
    // the network peer does not process: nothing moves within the 2 s
    const peerAddress = env.peer.libp2p.getMultiaddrs().find(m => !m.toString().includes('/ws'))?.toString() ?? ''
    const io = capture()
    expect(await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
      '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--timeout', '2', '--force', '--out', join(env.dir, 'out'),
      '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment, '--bootstrap', peerAddress], io)).toBe(1)
    const jobId = /jobId: (0x[0-9a-f]{64})/.exec(io.stdout.join('\n'))?.[1] ?? ''
    expect(io.stderr.at(-1)).toMatch(/^TimeoutError: /)
    expect(io.stderr).toContain(`job ${jobId} is funded and goes on without this process (--timeout 2 s ran out following it): follow it with ` +
      `jobmesh-dapp wait ${jobId}, then jobmesh-dapp results ${jobId} --out ${join(env.dir, 'out')}; submitting again pays for another job`)
    // with --json the error document names the job (it was only in the message's text)
    const json = capture()
    expect(await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
      '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--timeout', '2', '--force', '--json', '--out', join(env.dir, 'out2'),
      '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment, '--bootstrap', peerAddress], json)).toBe(1)
    const doc = JSON.parse(json.stdout.at(-1) ?? '{}') as { error: { name: string, jobId?: string } }
    expect(doc.error.name).toBe('TimeoutError')
    expect(doc.error.jobId).toMatch(/^0x[0-9a-f]{64}$/)
    expect(doc.error.jobId).not.toBe(jobId)
  }, 60_000)

  it('a submit that follows its job waits for a holder of the inputs no longer than its --timeout (a peer that never answers)', async () => {
    const env = await setup()
    const files = await jobFiles(env, env.anvil.accounts[2].privateKey)
    // the peer takes the replication request and never answers it: the wait for a holder would run the SDK's default
    // (60 s) before the following --timeout counted
    const held: Stream[] = []
    await env.peer.libp2p.handle(REPLICATION_PROTOCOL, (stream) => { held.push(stream) })
    const peerAddress = env.peer.libp2p.getMultiaddrs().find(m => !m.toString().includes('/ws'))?.toString() ?? ''
    const io = capture()
    const started = Date.now()
    expect(await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
      '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--timeout', '2', '--force', '--out', join(env.dir, 'out'),
      '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment, '--bootstrap', peerAddress], io)).toBe(1)
    expect(held.length).toBeGreaterThan(0)
    expect(io.stderr).toContain('warning: no peer confirmed it holds the job\'s code and data yet; keep this process running until peers pick the job up')
    expect(io.stderr.at(-1)).toMatch(/^TimeoutError: /)
    // its 2 s, the stages before it, and room for a loaded machine: far from the client's 60 s
    expect(Date.now() - started).toBeLessThan(DEFAULT_REPLICATION_TIMEOUT_MS / 2)
    for (const s of held) s.abort(new Error('test over'))
  }, 90_000)

  it('a wallet that cannot pay: submit says its balance and what the job needs, prints no jobId of a job that was not created (--json too)', async () => {
    const env = await setup()
    const wallet = Wallet.createRandom()
    const files = await jobFiles(env, wallet.privateKey)
    const submit = ['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2', '--blocks-per-micro', '2',
      '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--detach', '--timeout', '2', '--force',
      '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment]
    // nothing at all: refused before the upload
    const empty = capture()
    expect(await run(submit, empty)).toBe(1)
    expect(empty.stderr.at(-1)).toBe(`InsufficientFundsError: wallet ${wallet.address} has 0.0 ETH, needs 0.001 ETH (the job's fee) + gas; nothing was uploaded or paid`)
    expect(empty.stderr.join('\n')).not.toMatch(/uploading|creating/)
    expect(empty.stdout.join('\n')).not.toMatch(/jobId/)
    const json = capture()
    expect(await run([...submit, '--json'], json)).toBe(1)
    expect(json.stderr.join('\n')).not.toMatch(/jobId/)
    expect(JSON.parse(json.stdout.at(-1) ?? '{}')).toMatchObject({ error: { name: 'InsufficientFundsError' } })
    // the fee but not the gas: the funding transaction fails, and no jobId is printed as if the job existed
    await env.provider.send('anvil_setBalance', [wallet.address, toQuantity(10n ** 15n)])
    const feeOnly = capture()
    expect(await run(submit, feeOnly)).toBe(1)
    expect(feeOnly.stderr.at(-1)).toMatch(new RegExp(`^InsufficientFundsError: wallet ${wallet.address} has 0\\.001 ETH, needs 0\\.001 ETH \\(the job's fee\\) \\+ gas; ` +
      'job 0x[0-9a-f]{64} was not created, nothing was paid$'))
    expect(feeOnly.stdout.join('\n')).not.toMatch(/jobId/)
    expect(await env.provider.getTransactionCount(wallet.address)).toBe(0)
  })

  it('refuses code that is not a jobmesh WebAssembly module with one line and exit 2, paying nothing', async () => {
    const env = await setup()
    const { data } = smallJob()
    const files = { text: join(env.dir, 'job.txt'), empty: join(env.dir, 'zero.wasm'), noAbi: join(env.dir, 'empty.wasm'), data: join(env.dir, 'data.bin'), key: join(env.dir, 'key'), deployment: join(env.dir, 'deployment.json') }
    await writeFile(files.text, 'not a WebAssembly module\n')
    await writeFile(files.empty, new Uint8Array(0))
    await writeFile(files.noAbi, new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]))
    await writeFile(files.data, data)
    await writeFile(files.key, `${env.anvil.accounts[2].privateKey}\n`)
    await writeFile(files.deployment, serializeDeployment(env.deployment))
    const address = env.anvil.accounts[2].address
    const balance = await env.provider.getBalance(address)
    for (const [code, pattern] of [[files.text, /bad magic number/], [files.empty, /the file is empty/], [files.noAbi, /does not export/]] as const) {
      const io = capture()
      expect(await run(['submit', '--code', code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
        '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--detach',
        '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment], io)).toBe(2)
      expect(io.stderr).toHaveLength(1)
      expect(io.stderr[0]).toMatch(/^InvalidCodeError: /)
      expect(io.stderr[0]).toMatch(pattern)
      expect(io.stdout).toEqual([])
    }
    // an input file that is missing, or a directory: named with its flag, exit 2, before anything is paid
    for (const [args, message] of [
      [['--code', join(env.dir, 'none.wasm'), '--data', files.data], `InvalidConfigError: cannot read --code ${join(env.dir, 'none.wasm')}: no such file`],
      [['--code', files.noAbi, '--data', env.dir], `InvalidConfigError: cannot read --data ${env.dir}: it is a directory`],
      [['--code', files.noAbi, '--data', files.data, '--model', join(env.dir, 'none.bin')], `InvalidConfigError: cannot read --model ${join(env.dir, 'none.bin')}: no such file`],
      // a scheme jobmesh does not read is named as such, not as a missing file
      [['--code', 'ftp://x/y.wasm', '--data', files.data], 'InvalidConfigError: cannot read --code ftp://x/y.wasm: ftp:// is not a scheme jobmesh reads (a file, ipfs:// or https://)']
    ]) {
      const io = capture()
      expect(await run(['submit', ...args, '--macro-jobs', '2', '--micro-per-macro', '2', '--blocks-per-micro', '2', '--block-size', '4',
        '--price', '0.001', '--verifiers', '3', '--detach', '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment], io)).toBe(2)
      expect(io.stderr).toEqual([message])
    }
    // data named by a URI: its block count comes from --block-count, checked against the slicing like a file's
    const uri = 'ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'
    const valid = join(env.dir, 'job.wasm')
    await writeFile(valid, smallJob().code)
    const common = ['--code', valid, '--data', uri, '--macro-jobs', '2', '--micro-per-macro', '2', '--blocks-per-micro', '2', '--block-size', '4',
      '--price', '0.001', '--verifiers', '3', '--detach', '--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment]
    const none = capture()
    expect(await run(['submit', ...common], none)).toBe(2)
    expect(none.stderr.join('\n')).toContain('blockCount: blockCount is required when data is a URI (jobmesh-dapp submit: --block-count)')
    const twenty = capture()
    expect(await run(['submit', ...common, '--block-count', '20'], twenty)).toBe(2)
    expect(twenty.stderr.join('\n')).toMatch(/slicing: .*\b20\b/)
    expect(twenty.stderr.join('\n')).not.toContain('blockCount is required')
    expect(await env.provider.getBalance(address)).toBe(balance)
    expect(await env.provider.getTransactionCount(address)).toBe(0)
  })

  it('refuses an --out it cannot write before paying (submit) or downloading (results), exit 2', async () => {
    const env = await setup()
    const files = { ...await jobFiles(env, env.anvil.accounts[2].privateKey), file: join(env.dir, 'a-file') }
    await writeFile(files.file, 'not a folder\n')
    const connect = ['--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment]
    const io = capture()
    expect(await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
      '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--out', files.file, ...connect], io)).toBe(2)
    expect(io.stderr).toEqual([`InvalidConfigError: --out ${files.file}: it is a file, not a directory`])
    expect(await env.provider.getTransactionCount(env.anvil.accounts[2].address)).toBe(0)
    const io2 = capture()
    const below = join(files.file, 'out')
    expect(await run(['results', '0x' + '1'.repeat(64), '--out', below, ...connect], io2)).toBe(2)
    expect(io2.stderr).toEqual([`InvalidConfigError: --out ${below}: a folder on its path is a file`])
    // with --json the failure is one JSON document on stdout too
    const io3 = capture()
    expect(await run(['results', '0x' + '1'.repeat(64), '--out', below, '--json', ...connect], io3)).toBe(2)
    expect(io3.stdout.map(l => JSON.parse(l) as unknown)).toEqual([{ error: { name: 'InvalidConfigError', message: `--out ${below}: a folder on its path is a file`, jobId: '0x' + '1'.repeat(64) } }])
    // an empty --out is not the current directory
    const io4 = capture()
    expect(await run(['results', '0x' + '1'.repeat(64), '--out', '', ...connect], io4)).toBe(2)
    expect(io4.stderr).toEqual(['InvalidConfigError: --out is empty: name a directory for the outputs'])
    // a folder of another job's outputs: refused before paying (it was refused once the job was paid and released)
    const used = join(env.dir, 'used')
    await mkdir(used)
    await writeFile(join(used, '.jobmesh-job'), `0x${'2'.repeat(64)}\n`)
    const io5 = capture()
    expect(await run(['submit', '--code', files.code, '--data', files.data, '--macro-jobs', '2', '--micro-per-macro', '2',
      '--blocks-per-micro', '2', '--block-size', '4', '--price', '0.001', '--verifiers', '3', '--out', used, ...connect], io5)).toBe(2)
    expect(io5.stderr).toEqual([`InvalidConfigError: --out ${used} holds the outputs of job 0x${'2'.repeat(64)}: name another folder for the new job`])
    expect(await env.provider.getTransactionCount(env.anvil.accounts[2].address)).toBe(0)
  })
})

/** The control characters (C0, DEL, C1) in a text. */
function controls (text: string): string[] {
  return [...text].filter(c => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f))
}

describe('jobmesh-dapp prints network text without control characters', () => {
  it('a story whose lines and peers\' GPU models carry escape sequences and line breaks: one line each, escaped', () => {
    const gpu = 'H100\u001b[8m\n  12D3KooWFake  H100 / 80 GB  can take it'
    const story = {
      jobId: '0x' + '12'.repeat(32),
      phase: 'open',
      matching: { peers: 1, matching: 0, byPeer: [{ peerId: '12D3KooWPeer', vramGb: 8, gpuModel: gpu, reasons: ['vram' as const] }], summary: '' },
      lines: ['failed on 2 peers: \u001b]52;c;aGk=\u0007\nreleased'],
      waitingFor: 'a peer\u001b[2J',
      announced: true
    }
    const lines = formatStory(story)
    expect(lines).toHaveLength(9)
    for (const line of lines) expect(controls(line)).toEqual([])
    expect(lines).toContain('  failed on 2 peers: \\u001b]52;c;aGk=\\u0007\\u000areleased')
    expect(lines.at(-1)).toBe('  12D3KooWPeer  H100\\u001b[8m\\u000a  12D3KooWFake  H100 / 80 GB  can take it / 8 GB  too little VRAM')
 
    // the table is about the job's requirements; a matching peer is "matches" (its bond is the waiting line's to say)
    const matched = formatStory({ ...story, matching: { ...story.matching, matching: 1, byPeer: [{ peerId: '12D3KooWOk', vramGb: 80, gpuModel: 'H100', reasons: [] }] } })
    expect(matched.slice(-2)).toEqual(['peers (against the job\'s requirements):', '  12D3KooWOk  H100 / 80 GB  matches'])
    // a node that asked to leave the registry is not called paused (a paused node's next start resumes it)
    const leaving = formatStory({ ...story, matching: { ...story.matching, byPeer: [{ peerId: '12D3KooWEx', vramGb: 24, gpuModel: 'RTX 4090', reasons: ['exiting'] }] } })
    expect(leaving.at(-1)).toBe('  12D3KooWEx  RTX 4090 / 24 GB  exiting (leaving the registry)')
  })

  it('whatever the CLI prints goes out without control characters: an argument echoed in an error', async () => {
    const io = capture()
    expect(await run(['\u001b]52;c;aGk=\u0007'], io)).toBe(2)
    const printed = [...io.stdout, ...io.stderr].join('\n')
    expect(controls(printed).filter(c => c !== '\n')).toEqual([])
    expect(printed).toContain('\\u001b]52;c;aGk=\\u0007')
  })
})
