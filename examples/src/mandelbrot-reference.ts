import { MANDELBROT_BLOCK_SIZE, decodeMandelbrotBlock, encodeMandelbrotTile } from './mandelbrot-data.js'
import type { MandelbrotImage } from './mandelbrot-data.js'

/** Escape iteration count of z <- z^2 + c from 0, capped at `maxIter` (same operation order as the wasm). */
function escape (cx: number, cy: number, maxIter: number): number {
  let zx = 0
  let zy = 0
  let i = 0
  while (i < maxIter) {
    const zx2 = zx * zx
    const zy2 = zy * zy
    if (zx2 + zy2 > 4) {
      break
    }
    zy = 2 * zx * zy + cy
    zx = zx2 - zy2 + cx
    i++
  }
  return i
}

/** Renders rows `[rowStart, rowEnd)` of `image` in TypeScript: the reference for the wasm module. */
export function renderMandelbrotRows (image: MandelbrotImage, rowStart: number, rowEnd: number): Uint8Array {
  const { width, height, x0, y0, x1, y1, maxIter } = image
  const pixels = new Uint8Array(width * (rowEnd - rowStart))
  let at = 0
  for (let py = rowStart; py < rowEnd; py++) {
    const cy = y0 + (y1 - y0) * (py + 0.5) / height
    for (let px = 0; px < width; px++) {
      const cx = x0 + (x1 - x0) * (px + 0.5) / width
      const i = escape(cx, cy, maxIter)
      pixels[at++] = i >= maxIter ? 0 : 255 - Math.floor(i * 255 / maxIter)
    }
  }
  return pixels
}

/** What the wasm module outputs for `input` (consecutive blocks of one image), computed in TypeScript. */
export function mandelbrotReference (input: Uint8Array): Uint8Array {
  const blocks = input.length / MANDELBROT_BLOCK_SIZE
  if (!Number.isInteger(blocks) || blocks === 0) {
    throw new Error('Input must be whole 64-byte blocks')
  }
  const first = decodeMandelbrotBlock(input, 0)
  const last = decodeMandelbrotBlock(input, (blocks - 1) * MANDELBROT_BLOCK_SIZE)
  return encodeMandelbrotTile({
    width: first.image.width,
    rowStart: first.rowStart,
    rowEnd: last.rowEnd,
    pixels: renderMandelbrotRows(first.image, first.rowStart, last.rowEnd)
  })
}
