import { describe, expect, it } from 'vitest'
import { withoutLeadingSeparator } from '../../src/cli/leading-separator.js'
import { jobmesh } from './run-cli.js'

describe('a -- in front of the command (npx jobmesh -- --help)', () => {
  it('is dropped; a -- after the command name stays', () => {
    expect(withoutLeadingSeparator(['--', '--help'])).toEqual(['--help'])
    expect(withoutLeadingSeparator(['--', 'start', '--http', '127.0.0.1:0'])).toEqual(['start', '--http', '127.0.0.1:0'])
    expect(withoutLeadingSeparator(['status', '--', 'x'])).toEqual(['status', '--', 'x'])
    expect(withoutLeadingSeparator([])).toEqual([])
  })

  it('jobmesh -- --help prints the usage and exits 0, as jobmesh --help does; -- --version the version', async () => {
    const plain = await jobmesh(['--help'])
    expect(await jobmesh(['--', '--help'])).toEqual(plain)
    expect(plain.code).toBe(0)
    expect(plain.stdout).toMatch(/^Usage: jobmesh \[options\] \[command\]/)
    expect(await jobmesh(['--', '--version'])).toEqual(await jobmesh(['--version']))
    // a command after the --: its own help
    expect((await jobmesh(['--', 'status', '--help'])).stdout).toMatch(/^Usage: jobmesh status/)
  })
})
