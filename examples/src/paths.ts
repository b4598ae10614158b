import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** The example jobs compiled by `npm run generate -w examples`. */
export type ExampleName = 'mandelbrot' | 'wordcount' | 'mandelbrot-palette'

/** Path of `examples/build/<name>.wasm` (the same from `src/` and from a build output next to it). */
export function exampleWasmPath (name: ExampleName): string {
  return fileURLToPath(new URL(`../build/${name}.wasm`, import.meta.url))
}

/** Reads a compiled example job. Run `npm run generate -w examples` first. */
export async function loadExampleWasm (name: ExampleName): Promise<Uint8Array> {
  return new Uint8Array(await readFile(exampleWasmPath(name)))
}
