import { MANDELBROT_TILE_HEADER, decodeMandelbrotTile } from './mandelbrot-data.js'
import { mandelbrotJobInput } from './mandelbrot-job.js'
import { mandelbrotReference } from './mandelbrot-reference.js'
import { loadExampleWasm } from './paths.js'
import type { MandelbrotJobInit } from './mandelbrot-job.js'
import type { JobClient, SubmitOptions, SubmittedJob } from '@jobmesh/dapp-sdk'

/** A palette: 256 RGB colours, the model of the palette job (`examples/assembly/mandelbrot-palette.ts`). */
export const PALETTE_BYTES = 768

/** Magic of a coloured tile ("MBC1"), the palette job's output; the rest of the header is the gray tile's. */
export const MANDELBROT_RGB_TILE_MAGIC = 0x3143424d

/** A deterministic palette from deep blue through orange to white (gray 0, the set itself, stays black). */
export function gradientPalette (): Uint8Array {
  const p = new Uint8Array(PALETTE_BYTES)
  for (let g = 1; g < 256; g++) {
    const t = g / 255
    p[g * 3] = Math.round(255 * Math.min(1, 2 * t))
    p[g * 3 + 1] = Math.round(255 * t * t)
    p[g * 3 + 2] = Math.round(255 * Math.min(1, 0.3 + 1.4 * (1 - t) * t + t * t))
  }
  return p
}

/** What the palette job outputs for a MicroJob's input (`u32 768 ‖ palette ‖ blocks`), computed in TypeScript. */
export function mandelbrotPaletteReference (input: Uint8Array): Uint8Array {
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength)
  if (input.length < 4 || view.getUint32(0, true) !== PALETTE_BYTES || input.length < 4 + PALETTE_BYTES) {
    throw new Error('the input must start with a 768-byte palette')
  }
  const palette = input.subarray(4, 4 + PALETTE_BYTES)
  const gray = decodeMandelbrotTile(mandelbrotReference(input.subarray(4 + PALETTE_BYTES)))
  const out = new Uint8Array(MANDELBROT_TILE_HEADER + gray.pixels.length * 3)
  const header = new DataView(out.buffer)
  header.setUint32(0, MANDELBROT_RGB_TILE_MAGIC, true)
  header.setUint32(4, gray.width, true)
  header.setUint32(8, gray.rowStart, true)
  header.setUint32(12, gray.rowEnd, true)
  gray.pixels.forEach((g, i) => { out.set(palette.subarray(g * 3, g * 3 + 3), MANDELBROT_TILE_HEADER + i * 3) })
  return out
}

/**
 * Submits a coloured Mandelbrot job: the grayscale job's data and slicing, the palette job's code, and the palette
 * as the job's model (uploaded by the SDK: its holders run the job first, docs/contracts.md, Model holders).
 */
export async function submitMandelbrotPalette (client: JobClient, init: MandelbrotJobInit & { palette: Uint8Array | { uri: string } },
  options: SubmitOptions = {}): Promise<SubmittedJob> {
  return await client.submit({ code: await loadExampleWasm('mandelbrot-palette'), ...mandelbrotJobInput(init), model: init.palette }, options)
}
