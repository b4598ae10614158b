import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_MANDELBROT_IMAGE, MANDELBROT_BLOCK_SIZE, encodeMandelbrotData } from './mandelbrot-data.js'
import { gradientPalette } from './mandelbrot-palette.js'
import { DEFAULT_TEXT_BLOCK_SIZE, DEFAULT_TEXT_BYTES, generateText } from './wordcount-data.js'

export interface ExampleDataInit {
  /** Rows per Mandelbrot block (default 8). */
  rowsPerBlock?: number
  /** Size of the text (default 4 MiB). */
  textBytes?: number
  /** Block size of the text (default 64 KiB). */
  textBlockSize?: number
  /** Seed of the text (default 1). */
  seed?: number
}

/** What was written: file name, block size and block count, ready for a job spec. */
export interface ExampleDataFile {
  path: string
  blockSize: number
  blockCount: number
}

/**
 * Writes the data of both examples to `dir`: `mandelbrot.bin` (the default 1024 x 768 image) and
 * `words.txt` (the generated text). The same init writes the same bytes on every machine.
 */
export async function writeExampleData (dir: string, init: ExampleDataInit = {}): Promise<ExampleDataFile[]> {
  await mkdir(dir, { recursive: true })
  const mandelbrot = encodeMandelbrotData(DEFAULT_MANDELBROT_IMAGE, init.rowsPerBlock ?? 8)
  const textBlockSize = init.textBlockSize ?? DEFAULT_TEXT_BLOCK_SIZE
  const text = generateText({ bytes: init.textBytes ?? DEFAULT_TEXT_BYTES, blockSize: textBlockSize, seed: init.seed ?? 1 })
  const files = [
    { path: join(dir, 'mandelbrot.bin'), bytes: mandelbrot, blockSize: MANDELBROT_BLOCK_SIZE },
    { path: join(dir, 'words.txt'), bytes: text, blockSize: textBlockSize }
  ]
  for (const f of files) {
    await writeFile(f.path, f.bytes)
  }
  return files.map(f => ({ path: f.path, blockSize: f.blockSize, blockCount: f.bytes.length / f.blockSize }))
}

// node examples/dist/generate-data.js [dir]: the data of both examples and the palette model of mandelbrot-palette.wasm
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? 'data'
  const files = await writeExampleData(dir)
  for (const f of files) {
    process.stdout.write(`${f.path}: ${f.blockCount} blocks of ${f.blockSize} bytes\n`)
  }
  const palette = join(dir, 'palette.bin')
  await writeFile(palette, gradientPalette())
  process.stdout.write(`${palette}: a palette model (256 RGB colours) for mandelbrot-palette.wasm (--model)\n`)
}
