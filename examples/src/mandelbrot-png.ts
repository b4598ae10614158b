import { PNG } from 'pngjs'
import { decodeMandelbrotTile } from './mandelbrot-data.js'

/**
 * Stitches Mandelbrot tiles (MicroJob outputs, in MicroJob order) into a grayscale PNG. The tiles must cover
 * rows `0 .. height` without gaps or overlaps and share one width.
 */
export function mandelbrotPng (tiles: Uint8Array[]): Uint8Array {
  const decoded = tiles.map(decodeMandelbrotTile)
  if (decoded.length === 0) {
    throw new Error('No tiles')
  }
  const width = decoded[0].width
  let row = 0
  for (const tile of decoded) {
    if (tile.width !== width) {
      throw new Error(`Tile of width ${tile.width} in an image of width ${width}`)
    }
    if (tile.rowStart !== row) {
      throw new Error(`Tile starts at row ${tile.rowStart}, expected ${row}`)
    }
    row = tile.rowEnd
  }
  const height = row
  const png = new PNG({ width, height, colorType: 0, inputColorType: 0, inputHasAlpha: false, bitDepth: 8 })
  png.data = Buffer.concat(decoded.map(t => t.pixels))
  return new Uint8Array(PNG.sync.write(png, { colorType: 0, inputColorType: 0, inputHasAlpha: false }))
}
