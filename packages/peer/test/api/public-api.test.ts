import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'

const pkgDir = fileURLToPath(new URL('../../', import.meta.url))
const pkg = JSON.parse(readFileSync(`${pkgDir}package.json`, 'utf8')) as { exports: Record<string, { types: string, import: string }> }
/**
 * The CLIs' helpers both CLIs use (one module each, in src/cli), not folders: the polyfill, the closed-stdout guard,
 * the end of a command, the terminal-safe text of network strings, the `--` npm passes on in front of a command.
 */
const CLI_ENTRY = new Set(['./polyfill', './closed-stdout', './command-end', './terminal-text', './kernel-fs', './package-version', './file-problem', './table', './leading-separator'])
/** The folder entry points: every subpath but the root and the CLIs' entry-point helpers. */
const folders = Object.keys(pkg.exports).filter(k => k !== '.' && !CLI_ENTRY.has(k)).map(k => k.slice(2))

describe('the public API of @jobmesh/peer', () => {
  it('keeps the root small: what a node operator or embedder needs, under 100 names', async () => {
    const root = await import('@jobmesh/peer')
    const names = Object.keys(root)
    expect(names.length).toBeLessThan(100)
    for (const name of ['createPeer', 'CLI_BIN', 'METRIC_NAMES', 'EventLog', 'createWasmExecutor', 'InsufficientFundsError']) {
      expect(names).toContain(name)
    }
    // the parts live behind their own entry points
    for (const name of ['createDocStore', 'createProcessor', 'startDevnet', 'parseJobSpec', 'createChainClient']) {
      expect(names).not.toContain(name)
    }
  })

  it('has the devnet and the protocol core at their subpaths', async () => {
    expect(folders).toEqual(expect.arrayContaining(['devnet', 'protocol']))
    const devnet = await import('@jobmesh/peer/devnet')
    expect(typeof devnet.startDevnet).toBe('function')
    const protocol = await import('@jobmesh/peer/protocol')
    expect(typeof protocol.parseJobSpec).toBe('function')
    expect(typeof protocol.computeJobId).toBe('function')
  })

  it.each(folders)('maps ./%s to its folder index.ts in the sources (tests) and in dist (the package)', async folder => {
    const entry = pkg.exports[`./${folder}`]
    expect(entry).toEqual({ types: `./dist/${folder}/index.d.ts`, import: `./dist/${folder}/index.js` })
    const source = await import(pathToFileURL(`${pkgDir}src/${folder}/index.ts`).href)
    // the vitest alias resolves the subpath to the very same source module
    expect(await import(`@jobmesh/peer/${folder}`)).toBe(source)
    expect(Object.keys(source).length).toBeGreaterThan(0)
    // the built entry exists and exports the same names (built by `npm run build` before the tests)
    expect(existsSync(`${pkgDir}dist/${folder}/index.js`)).toBe(true)
    expect(existsSync(`${pkgDir}dist/${folder}/index.d.ts`)).toBe(true)
    const built = await import(pathToFileURL(`${pkgDir}dist/${folder}/index.js`).href)
    expect(Object.keys(built).sort()).toEqual(Object.keys(source).sort())
  })
})
