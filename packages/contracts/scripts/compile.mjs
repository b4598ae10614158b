#!/usr/bin/env node
// Compiles packages/contracts/src/**/*.sol with solc-js (no network) and writes src/artifacts.generated.ts:
// one `as const` ABI and one bytecode string per contract defined in src/ (nodeRegistryAbi,
// nodeRegistryBytecode, jobEscrowAbi, ...), so ethers and viem infer typed contracts.
//
// Compiler settings are read from foundry.toml (optimizer, optimizer_runs, via_ir, evm_version) so the
// bytecode here matches what `forge test` measures.
//
// Skips work when nothing changed: the generated file records a hash of the sources, the settings, the
// solc version and this script; a rerun with the same hash exits at once. `--force` recompiles anyway.
//
// Usage: node scripts/compile.mjs [--force] [--out <file>]
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const srcDir = path.join(pkgDir, 'src')
const args = process.argv.slice(2)
const force = args.includes('--force')
const outIdx = args.indexOf('--out')
const outFile = outIdx >= 0 ? path.resolve(args[outIdx + 1]) : path.join(srcDir, 'artifacts.generated.ts')

function fail (message) {
  process.stderr.write(`compile: ${message}\n`)
  process.exit(1)
}

/** The few foundry.toml keys that change bytecode, from [profile.default]. */
function readFoundrySettings () {
  const file = path.join(pkgDir, 'foundry.toml')
  const settings = { optimizer: true, runs: 200, viaIR: false, evmVersion: 'cancun' }
  if (!fs.existsSync(file)) return settings
  let section = ''
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    const line = raw.replace(/#.*$/, '').trim()
    const sec = /^\[(.+)\]$/.exec(line)
    if (sec != null) { section = sec[1]; continue }
    if (section !== 'profile.default') continue
    const kv = /^(\w+)\s*=\s*(.+)$/.exec(line)
    if (kv == null) continue
    const [, key, value] = kv
    const unq = value.replace(/^"|"$/g, '')
    if (key === 'optimizer') settings.optimizer = unq === 'true'
    else if (key === 'optimizer_runs') settings.runs = Number(unq)
    else if (key === 'via_ir') settings.viaIR = unq === 'true'
    else if (key === 'evm_version') settings.evmVersion = unq
  }
  return settings
}

/** Resolves an import path the way forge's remappings do: `@openzeppelin/` from node_modules, else relative to src/. */
function resolveImport (importPath) {
  const candidates = []
  if (importPath.startsWith('@')) {
    try {
      // e.g. @openzeppelin/contracts/utils/cryptography/MerkleProof.sol
      candidates.push(require.resolve(importPath, { paths: [pkgDir] }))
    } catch { /* try the next */ }
    candidates.push(path.join(pkgDir, '..', '..', 'node_modules', importPath))
  }
  candidates.push(path.join(pkgDir, importPath), path.join(srcDir, importPath))
  for (const c of candidates) {
    if (fs.existsSync(c)) return c
  }
  return undefined
}

/** NodeRegistry -> nodeRegistry, IJobEscrowHooks -> iJobEscrowHooks, QoS -> qos. */
function camel (name) {
  if (name.length <= 3) return name.toLowerCase()
  return name.charAt(0).toLowerCase() + name.slice(1)
}

const solc = require('solc')
const settings = readFoundrySettings()
// src/**/*.sol (libraries live in src/libraries/), keyed `src/<relative path>` as forge names them.
const files = fs.readdirSync(srcDir, { recursive: true })
  .map((f) => String(f).split(path.sep).join('/'))
  .filter((f) => f.endsWith('.sol'))
  .sort()
if (files.length === 0) fail(`no .sol files under ${srcDir}`)

const sources = {}
for (const f of files) sources[`src/${f}`] = { content: fs.readFileSync(path.join(srcDir, f), 'utf8') }

const hash = createHash('sha256')
hash.update(solc.version())
hash.update(JSON.stringify(settings))
hash.update(fs.readFileSync(fileURLToPath(import.meta.url)))
try {
  hash.update(fs.readFileSync(require.resolve('@openzeppelin/contracts/package.json', { paths: [pkgDir] })))
} catch { /* not installed: the compile will say so */ }
for (const [name, { content }] of Object.entries(sources)) hash.update(name).update('\0').update(content).update('\0')
const sourcesHash = hash.digest('hex')
const marker = `// sources-hash: ${sourcesHash}`

if (!force && fs.existsSync(outFile) && fs.readFileSync(outFile, 'utf8').includes(marker)) {
  process.stdout.write(`compile: ${path.relative(process.cwd(), outFile)} is up to date\n`)
  process.exit(0)
}

const input = {
  language: 'Solidity',
  sources,
  settings: {
    optimizer: { enabled: settings.optimizer, runs: settings.runs },
    viaIR: settings.viaIR,
    evmVersion: settings.evmVersion,
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.bytecode.linkReferences', 'evm.deployedBytecode.object'] } }
  }
}

const started = Date.now()
const output = JSON.parse(solc.compile(JSON.stringify(input), {
  import: (importPath) => {
    const file = resolveImport(importPath)
    if (file === undefined) return { error: `not found: ${importPath} (looked in node_modules and src/)` }
    return { contents: fs.readFileSync(file, 'utf8') }
  }
}))

const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
const warnings = (output.errors ?? []).filter((e) => e.severity !== 'error')
if (errors.length > 0) {
  fail(`solc ${solc.version()} reported ${errors.length} error(s):\n\n${errors.map((e) => e.formattedMessage ?? e.message).join('\n')}`)
}
if (warnings.length > 0 && process.env.JOBMESH_COMPILE_WARNINGS === '1') {
  process.stderr.write(warnings.map((w) => w.formattedMessage ?? w.message).join('\n') + '\n')
}

// Only contracts defined in src/ (not OpenZeppelin's), and only those with an ABI worth exporting
// (libraries with internal functions only have an empty ABI and no deployable code: skipped).
const lines = [
  '// Generated by scripts/compile.mjs from src/*.sol. Do not edit: run `npm run generate -w @jobmesh/contracts`.',
  `// solc ${solc.version()}, optimizer ${settings.optimizer ? `on (runs ${settings.runs})` : 'off'}, viaIR ${settings.viaIR}, evm ${settings.evmVersion}`,
  marker,
  '/* eslint-disable */',
  ''
]
const names = []
for (const [sourceName, contracts] of Object.entries(output.contracts ?? {})) {
  if (!sourceName.startsWith('src/')) continue
  for (const [name, c] of Object.entries(contracts)) {
    const bytecode = c.evm?.bytecode?.object ?? ''
    if (c.abi.length === 0 && bytecode.length === 0) continue
    const links = c.evm?.bytecode?.linkReferences ?? {}
    if (Object.keys(links).length > 0) {
      fail(`${name} needs library linking (${Object.keys(links).join(', ')}); make the library functions internal`)
    }
    const id = camel(name)
    names.push(name)
    lines.push(`/** ABI of \`${name}\` (${sourceName}). */`)
    lines.push(`export const ${id}Abi = ${JSON.stringify(c.abi, null, 2)} as const`, '')
    lines.push(`/** Creation bytecode of \`${name}\` (constructor arguments are appended by the deployer). */`)
    lines.push(`export const ${id}Bytecode: \`0x\${string}\` = '0x${bytecode}'`, '')
  }
}
lines.push('/** Names of the contracts compiled from src/. */')
lines.push(`export const contractNames = ${JSON.stringify(names)} as const`, '')

fs.writeFileSync(outFile, lines.join('\n'))
process.stdout.write(`compile: ${names.join(', ')} -> ${path.relative(process.cwd(), outFile)} (${Date.now() - started} ms)\n`)
