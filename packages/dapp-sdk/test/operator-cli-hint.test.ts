import { afterEach, describe, expect, it, vi } from 'vitest'
import { run as runDapp } from '../src/cli/program.js'
import { run as runOperator } from '../../peer/src/cli/program.js'

afterEach(() => {
  vi.restoreAllMocks()
})

/** The command names `jobmesh-dapp --help` lists. */
async function dappCommands (): Promise<string[]> {
  const out: string[] = []
  expect(await runDapp(['--help'], { out: line => { out.push(line) }, err: () => {} })).toBe(0)
  const lines = out.join('\n').split('\n')
  const from = lines.findIndex(l => l.trim() === 'Commands:')
  return lines.slice(from + 1).map(l => /^ {2}([a-z][a-z-]*)/.exec(l)?.[1]).filter((n): n is string => n != null && n !== 'help')
}

describe('jobmesh, given a command of the DApp CLI', () => {
  it('points to jobmesh-dapp for every DApp command it has none of (its own list cannot drift from the DApp CLI\'s)', async () => {
    const names = await dappCommands()
    expect(names).toEqual(expect.arrayContaining(['submit', 'wait', 'results', 'list', 'refund', 'describe']))
    const stderr: string[] = []
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { stderr.push(String(chunk)); return true })
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    // `status` is a command of both (the peer's own status), so the operator's CLI runs it: not asked here
    for (const name of names.filter(n => n !== 'status')) {
      stderr.length = 0
      expect(await runOperator(['node', 'jobmesh', name]), name).toBe(2)
      expect(stderr.join(''), name).toContain(`'${name}' is a command of the DApp CLI: npx jobmesh-dapp ${name} ...`)
    }
  })
})
