import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { serializeDeployment } from '@jobmesh/contracts'
import { afterEach, describe, expect, it } from 'vitest'
import { run } from '../src/cli/program.js'
import { capture, cleanup, setup, smallJob } from './helpers.js'

afterEach(cleanup)

/** A submit of 2 MacroJobs x 4 MicroJobs of one block each (the small job's 32 bytes in blocks of 4). */
const SUBMIT = ['submit', '--macro-jobs', '2', '--micro-per-macro', '4', '--blocks-per-micro', '1', '--block-size', '4', '--price', '0.001']

// README.md and docs/sdk.md offer the DApp a verification sample up to every MicroJob; the CLI had no way to ask for
// it (`error: unknown option '--verification'`): `--verification` takes what the SDK's `verification` takes.
describe('jobmesh-dapp submit --verification', () => {
  it('refuses a level the SDK does not take with a clear message and exit 2, before anything is read or paid', async () => {
    for (const level of ['most', '0', '1.5', '-0.5', '2', 'FULL', '', '0x1', '1/4']) {
      const io = capture()
      expect(await run([...SUBMIT, '--code', 'a.wasm', '--data', 'd.bin', '--verification', level, '--deployment', 'd.json'], io), level).toBe(2)
      expect(io.stderr.join('\n')).toContain(`option '--verification <level>' argument '${level}' is invalid. expected full (every MicroJob) or a fraction of each MacroJob's MicroJobs in (0, 1], e.g. 0.25`)
    }
    // with --json: the usage error's document
    const json = capture()
    expect(await run([...SUBMIT, '--code', 'a.wasm', '--data', 'd.bin', '--verification', 'all', '--json', '--deployment', 'd.json'], json)).toBe(2)
    expect(JSON.parse(json.stdout[0] ?? '{}')).toMatchObject({ error: { name: 'UsageError', code: 'commander.invalidArgument' } })
    // and --help says what it takes
    const help = capture()
    expect(await run(['submit', '--help'], help)).toBe(0)
    expect(help.stdout.join('\n').replace(/\s+/g, ' ')).toMatch(/--verification <level> the share of each MacroJob's MicroJobs every verification round re-runs: a fraction in \(0, 1\]/)
  })

  it('a good level reaches the job on chain: its samples per MacroJob', async () => {
    const env = await setup()
    const { code, data } = smallJob()
    const files = { code: join(env.dir, 'job.wasm'), data: join(env.dir, 'data.bin'), key: join(env.dir, 'key'), deployment: join(env.dir, 'deployment.json') }
    await writeFile(files.code, code)
    await writeFile(files.data, data)
    await writeFile(files.key, `${env.anvil.accounts[2].privateKey}\n`)
    await writeFile(files.deployment, serializeDeployment(env.deployment))
    const connect = ['--rpc', env.anvil.rpcUrl, '--key-file', files.key, '--deployment', files.deployment]
    // 0.5 of 4 is 2, full is all 4 (the default would be 1)
    for (const [level, samples] of [['0.5', 2], ['full', 4]] as const) {
      const io = capture()
      // no peer runs here: --force pays anyway, and the detached submit ends once its short wait for a holder is over
      await run([...SUBMIT, '--code', files.code, '--data', files.data, '--verification', level, '--detach', '--timeout', '1', '--force', ...connect], io)
      const jobId = /jobId: (0x[0-9a-f]{64})/.exec(io.stdout.join('\n'))?.[1]
      expect(jobId, io.stderr.join('\n')).toBeDefined()
      expect(Number((await env.contracts(0).jobEscrow.jobs(jobId!)).samples), level).toBe(samples)
    }
    // a level the escrow cannot prove in one round (20 MacroJobs x 4 re-runs > 64) is the SDK's refusal, nothing paid
    const wide = join(env.dir, 'wide.bin')
    await writeFile(wide, new Uint8Array(80))
    const io = capture()
    expect(await run(['submit', '--macro-jobs', '20', '--micro-per-macro', '4', '--blocks-per-micro', '1', '--block-size', '1', '--price', '0.01',
      '--code', files.code, '--data', wide, '--verification', 'full', '--detach', '--timeout', '1', '--force', ...connect], io)).toBe(2)
    expect(io.stderr).toContain('invalid job:')
    expect(io.stderr).toContain('  verification: verification samples 80 MicroJobs per round (macroJobs x samples), the escrow allows 64')
    expect(io.stdout.join('\n')).not.toMatch(/jobId:/)
  }, 120_000)
})
