/**
 * The data of a Mandelbrot job: one 64-byte block per row band, each block self-contained (it repeats the
 * image description), so a MicroJob's block range is all the wasm module needs. Layout in docs/executor.md.
 */

/** Bytes per block of a Mandelbrot job's data. */
export const MANDELBROT_BLOCK_SIZE = 64

/** Magic of an input block, "MBT1" little-endian. */
export const MANDELBROT_BLOCK_MAGIC = 0x3154424d

/** Magic of a tile (the module's output), "MBO1" little-endian. */
export const MANDELBROT_TILE_MAGIC = 0x314f424d

/** Bytes of a tile header. */
export const MANDELBROT_TILE_HEADER = 16

/** What to render: the image size, the view window in the complex plane and the iteration cap. */
export interface MandelbrotImage {
  width: number
  height: number
  /** Real part at the left edge. */
  x0: number
  /** Imaginary part at the top edge. */
  y0: number
  /** Real part at the right edge. */
  x1: number
  /** Imaginary part at the bottom edge. */
  y1: number
  maxIter: number
}

/** One block: the rows `[rowStart, rowEnd)` of `image`. */
export interface MandelbrotBand {
  image: MandelbrotImage
  rowStart: number
  rowEnd: number
}

/** The classic full view, 1024 x 768, 256 iterations. */
export const DEFAULT_MANDELBROT_IMAGE: MandelbrotImage = {
  width: 1024, height: 768, x0: -2.5, y0: 1.25, x1: 1, y1: -1.25, maxIter: 256
}

function checkU32 (value: number, what: string): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new RangeError(`${what} must be a u32, got ${value}`)
  }
}

/** Encodes one band as a 64-byte block. */
export function encodeMandelbrotBlock (band: MandelbrotBand): Uint8Array {
  const { image, rowStart, rowEnd } = band
  for (const [v, what] of [[image.width, 'width'], [image.height, 'height'], [image.maxIter, 'maxIter'],
    [rowStart, 'rowStart'], [rowEnd, 'rowEnd']] as const) {
    checkU32(v, what)
  }
  const block = new Uint8Array(MANDELBROT_BLOCK_SIZE)
  const view = new DataView(block.buffer)
  view.setUint32(0, MANDELBROT_BLOCK_MAGIC, true)
  view.setUint32(4, image.width, true)
  view.setUint32(8, image.height, true)
  view.setUint32(12, image.maxIter, true)
  view.setUint32(16, rowStart, true)
  view.setUint32(20, rowEnd, true)
  view.setFloat64(24, image.x0, true)
  view.setFloat64(32, image.y0, true)
  view.setFloat64(40, image.x1, true)
  view.setFloat64(48, image.y1, true)
  return block
}

/** Decodes the 64-byte block at `offset` of `data`. */
export function decodeMandelbrotBlock (data: Uint8Array, offset = 0): MandelbrotBand {
  const view = new DataView(data.buffer, data.byteOffset + offset, MANDELBROT_BLOCK_SIZE)
  if (view.getUint32(0, true) !== MANDELBROT_BLOCK_MAGIC) {
    throw new Error('Not a Mandelbrot block')
  }
  return {
    image: {
      width: view.getUint32(4, true),
      height: view.getUint32(8, true),
      maxIter: view.getUint32(12, true),
      x0: view.getFloat64(24, true),
      y0: view.getFloat64(32, true),
      x1: view.getFloat64(40, true),
      y1: view.getFloat64(48, true)
    },
    rowStart: view.getUint32(16, true),
    rowEnd: view.getUint32(20, true)
  }
}

/**
 * The job data for `image`: `ceil(height / rowsPerBlock)` blocks of {@link MANDELBROT_BLOCK_SIZE} bytes, block
 * `b` covering rows `[b * rowsPerBlock, min((b + 1) * rowsPerBlock, height))`.
 */
export function encodeMandelbrotData (image: MandelbrotImage, rowsPerBlock = 1): Uint8Array {
  if (!Number.isInteger(rowsPerBlock) || rowsPerBlock < 1) {
    throw new RangeError('rowsPerBlock must be a positive integer')
  }
  const blocks = Math.ceil(image.height / rowsPerBlock)
  const data = new Uint8Array(blocks * MANDELBROT_BLOCK_SIZE)
  for (let b = 0; b < blocks; b++) {
    const rowStart = b * rowsPerBlock
    const rowEnd = Math.min(rowStart + rowsPerBlock, image.height)
    data.set(encodeMandelbrotBlock({ image, rowStart, rowEnd }), b * MANDELBROT_BLOCK_SIZE)
  }
  return data
}

/** A decoded tile: rows `[rowStart, rowEnd)` of gray pixels, `width` bytes per row. */
export interface MandelbrotTile {
  width: number
  rowStart: number
  rowEnd: number
  pixels: Uint8Array
}

/** Encodes a tile the way the wasm module outputs it (without the ABI length prefix). */
export function encodeMandelbrotTile (tile: MandelbrotTile): Uint8Array {
  const out = new Uint8Array(MANDELBROT_TILE_HEADER + tile.pixels.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, MANDELBROT_TILE_MAGIC, true)
  view.setUint32(4, tile.width, true)
  view.setUint32(8, tile.rowStart, true)
  view.setUint32(12, tile.rowEnd, true)
  out.set(tile.pixels, MANDELBROT_TILE_HEADER)
  return out
}

/** Decodes a tile (a MicroJob's output) and checks its size. */
export function decodeMandelbrotTile (bytes: Uint8Array): MandelbrotTile {
  if (bytes.length < MANDELBROT_TILE_HEADER) {
    throw new Error('Mandelbrot tile too short')
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, MANDELBROT_TILE_HEADER)
  if (view.getUint32(0, true) !== MANDELBROT_TILE_MAGIC) {
    throw new Error('Not a Mandelbrot tile')
  }
  const width = view.getUint32(4, true)
  const rowStart = view.getUint32(8, true)
  const rowEnd = view.getUint32(12, true)
  const pixels = bytes.subarray(MANDELBROT_TILE_HEADER)
  if (rowEnd < rowStart || pixels.length !== width * (rowEnd - rowStart)) {
    throw new Error('Mandelbrot tile size does not match its header')
  }
  return { width, rowStart, rowEnd, pixels }
}
