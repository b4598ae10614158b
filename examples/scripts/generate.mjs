// Compiles the AssemblyScript example jobs to examples/build/<name>.wasm (run: npm run generate -w examples).
// Exports `generate()` for tests; skips a module whose .wasm is newer than every source in assembly/ (a module
// imports others: mandelbrot-palette.ts renders with mandelbrot.ts).
import { mkdir, readdir, stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import asc from 'assemblyscript/asc'

/** The example jobs, by name: examples/assembly/<name>.ts -> examples/build/<name>.wasm */
export const EXAMPLES = ['mandelbrot', 'wordcount', 'mandelbrot-palette']

const root = fileURLToPath(new URL('..', import.meta.url))

// The only import left is env.abort: no WASI, the stub runtime (bump allocator, no GC), no exported runtime.
const FLAGS = ['-O3', '--runtime', 'stub']

async function mtime (path) {
  try {
    return (await stat(path)).mtimeMs
  } catch {
    return -1
  }
}

/**
 * Builds the examples that are missing or older than their source.
 *
 * @param {{ force?: boolean }} [options]
 * @returns {Promise<string[]>} the names that were compiled
 */
export async function generate (options = {}) {
  await mkdir(`${root}build`, { recursive: true })
  const built = []
  // the newest source: any change in assembly/ may change any module that imports it
  let newest = -1
  for (const file of await readdir(`${root}assembly`)) {
    newest = Math.max(newest, await mtime(`${root}assembly/${file}`))
  }
  for (const name of EXAMPLES) {
    const source = `assembly/${name}.ts`
    const target = `build/${name}.wasm`
    if (options.force !== true && await mtime(`${root}${target}`) > newest) {
      continue
    }
    let errors = ''
    const { error } = await asc.main([source, '--outFile', target, ...FLAGS, '--baseDir', root], {
      stdout: { write: () => true },
      stderr: { write: (chunk) => { errors += String(chunk); return true } }
    })
    if (error != null) {
      throw new Error(`asc failed on ${source}: ${error.message}\n${errors}`)
    }
    built.push(name)
  }
  return built
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const built = await generate({ force: process.argv.includes('--force') })
  process.stdout.write(built.length > 0 ? `compiled ${built.join(', ')}\n` : 'examples are up to date\n')
}
