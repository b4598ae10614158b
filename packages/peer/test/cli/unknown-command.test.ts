import { describe, expect, it } from 'vitest'
import { jobmesh } from './run-cli.js'

describe('jobmesh <a jobmesh-dapp command>', () => {
  it('says that describe is a command of jobmesh-dapp, exit 2', async () => {
    const out = await jobmesh(['describe', `0x${'ab'.repeat(32)}`])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain("error: unknown command 'describe'")
    expect(out.stderr).toContain('npx jobmesh-dapp describe')
    expect(out.stdout).toBe('')
  })

  it('adds nothing for a command that is nobody\'s', async () => {
    const out = await jobmesh(['frobnicate'])
    expect(out.code).toBe(2)
    expect(out.stderr).toContain("error: unknown command 'frobnicate'")
    expect(out.stderr).not.toContain('jobmesh-dapp')
  })
})
