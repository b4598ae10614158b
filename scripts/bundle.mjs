#!/usr/bin/env node
// `npm run build`'s last step: each CLI (`jobmesh`, `jobmesh-dapp`) as one esbuild bundle of its compiled files and
// their dependencies, the file its package's `bin` names (docs/architecture.md, The CLIs ship as bundles). A process
// that starts from the bundle loads ~50 files instead of ~3 000 modules: `jobmesh --help` takes 0.3 s of CPU instead
// of 0.75, a `jobmesh start` ~1.2 s less. Native addons stay outside (LevelDB, WebRTC), and so do helia's and
// @helia/libp2p's entry points, which only the fallback of `node/helia-light.ts` loads, and undici: a CommonJS
// package imported dynamically (at a job's first `https://` read), which an ES module bundle would give as a
// `default` export only (`undici.Agent is not a constructor`); Node's own import gives its named exports.
import { readdir, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The CLIs: entry (tsc's output), the bundle's folder (two levels below the package, as the entry's folder). */
const CLIS = [
  { name: 'jobmesh', entry: 'packages/peer/dist/cli/bin.js', outdir: 'packages/peer/dist/bundle' },
  { name: 'jobmesh-dapp', entry: 'packages/dapp-sdk/dist/cli/bin.js', outdir: 'packages/dapp-sdk/dist/bundle' }
]

const EXTERNAL = ['classic-level', 'node-datachannel', '@ipshipyard/node-datachannel', 'helia', '@helia/libp2p', 'undici']

// CommonJS dependencies inside an ES module bundle call `require` for node's built-ins
const BANNER = "import { createRequire as __jobmeshRequire } from 'node:module'; const require = __jobmeshRequire(import.meta.url);"

/**
 * `node/helia-light.ts` imports three files of helia and @helia/libp2p by URLs it resolves at run time (their packages
 * export only their entry points); the bundle takes those files in, at the paths resolved here.
 */
const HELIA_FILE = /import\(new URL\('(\.\/[a-z-]+\.js)', resolve\('([@a-z0-9/-]+)'\)\)\.href\)/g
const HELIA_FILES = 3

const heliaFiles = {
  name: 'helia-files',
  setup (b) {
    b.onLoad({ filter: /[\\/]dist[\\/]node[\\/]helia-light\.js$/ }, async ({ path }) => {
      const require = createRequire(path)
      let found = 0
      const contents = (await readFile(path, 'utf8')).replace(HELIA_FILE, (_, file, specifier) => {
        found++
        return `import(${JSON.stringify(join(dirname(require.resolve(specifier)), file))})`
      })
      if (found !== HELIA_FILES) throw new Error(`${path}: ${found} of its ${HELIA_FILES} helia file imports found; update scripts/bundle.mjs`)
      return { contents, loader: 'js' }
    })
  }
}

/**
 * A chunk that only re-exports a CommonJS module as `default` is what esbuild makes of a dynamic `import()` of a
 * CommonJS package: its named exports are gone there (they are under `default`), so such a package goes in EXTERNAL.
 */
const COMMONJS_CHUNK = /^export default require_[\w$]+\(\);?$/m

async function refuseCommonJsChunks (outdir) {
  for (const file of (await readdir(outdir)).filter(f => f.endsWith('.js'))) {
    const text = await readFile(join(outdir, file), 'utf8')
    const found = COMMONJS_CHUNK.exec(text)
    if (found != null) throw new Error(`${join(outdir, file)}: a dynamically imported CommonJS module (${found[0]}) would lose its named exports; add its package to EXTERNAL in scripts/bundle.mjs`)
  }
}

for (const cli of CLIS) {
  const outdir = join(root, cli.outdir)
  await rm(outdir, { recursive: true, force: true })
  await build({
    entryPoints: { [cli.name]: join(root, cli.entry) },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    banner: { js: BANNER },
    // composed with tsc's maps: `node --enable-source-maps` names the TypeScript sources in a stack trace
    sourcemap: true,
    plugins: [heliaFiles],
    logLevel: 'warning'
  })
  await refuseCommonJsChunks(outdir)
}
