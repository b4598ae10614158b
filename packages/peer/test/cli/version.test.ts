import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { packageVersion } from '../../src/cli/package-version.js'
import { jobmesh } from './run-cli.js'

describe('jobmesh --version', () => {
  it('prints the version of @jobmesh/peer and exits 0', async () => {
    const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    for (const flag of ['--version', '-V']) {
      const out = await jobmesh([flag])
      expect(out).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' })
    }
  })

  it('a manifest that cannot be read gives "unknown", not a crash', () => {
    expect(packageVersion(new URL('file:///nonexistent/package.json'))).toBe('unknown')
  })
})
