// jobmesh example job: render row bands of a Mandelbrot image (grayscale, 1 byte per pixel).
//
// Input: one or more 64-byte blocks (the MicroJob's block range of the job's data), each a row band:
//   0  u32 magic 0x3154424d ("MBT1")   4  u32 width    8  u32 height   12 u32 maxIter
//   16 u32 rowStart                    20 u32 rowEnd   24 f64 x0 (left) 32 f64 y0 (top)
//   40 f64 x1 (right)                  48 f64 y1 (bottom)              56 u64 reserved (0)
// Consecutive blocks must be consecutive bands of the same image.
// Output (after the ABI's u32 length): 16-byte header
//   0 u32 magic 0x314f424d ("MBO1")   4 u32 width   8 u32 rowStart   12 u32 rowEnd
// then width * (rowEnd - rowStart) gray bytes, row by row.
// Pixel (px, py): cx = x0 + (x1 - x0) * (px + 0.5) / width, cy = y0 + (y1 - y0) * (py + 0.5) / height;
// i = escape iteration count of z <- z^2 + c from 0 (|z|^2 > 4), capped at maxIter;
// gray = i == maxIter ? 0 : 255 - floor(i * 255 / maxIter).
//
// Scratch (not output): after the output, the run leaves each pixel's final iterate z_i in memory, row by row, as
// two f64 (re, im; a NaN as the canonical 0x7ff8000000000000). The execution digest hashes the whole memory after
// the run (docs/executor.md), and without this buffer that memory would hold nothing but the input and the output:
// anyone could rebuild it from the public output with the module's own `alloc`, without iterating. z_i takes i
// iterations to get, so the digest (a processor's work tag, a verifier's vote) now needs the whole computation.
// It costs 16 bytes of memory per pixel (a MicroJob of 12 M pixels needs about 200 MiB of the executor's 256).

const BLOCK: i32 = 64
const IN_MAGIC: u32 = 0x3154424d
const OUT_MAGIC: u32 = 0x314f424d
const OUT_HEADER: i32 = 16
const SCRATCH_PIXEL: usize = 16 // f64 re, f64 im of the final iterate
const CANONICAL_NAN: u64 = 0x7ff8000000000000

export function alloc(len: i32): usize {
  return heap.alloc(<usize>max(len, 1))
}

// @ts-ignore: decorator
@inline function storeIterate(at: usize, v: f64): void {
  // NaN bits can differ between CPUs (docs/executor.md, Determinism); a NaN is stored as one pattern
  store<u64>(at, v != v ? CANONICAL_NAN : reinterpret<u64>(v))
}

/** The escape iteration of c; stores the final iterate z_i at `scratch` (re, im). */
function escape(cx: f64, cy: f64, maxIter: u32, scratch: usize): u32 {
  let zx = 0.0
  let zy = 0.0
  let i: u32 = 0
  while (i < maxIter) {
    const zx2 = zx * zx
    const zy2 = zy * zy
    if (zx2 + zy2 > 4.0) break
    zy = 2.0 * zx * zy + cy
    zx = zx2 - zy2 + cx
    i++
  }
  storeIterate(scratch, zx)
  storeIterate(scratch + 8, zy)
  return i
}

function render(ptr: usize, len: i32): usize {
  if (len == 0 || len % BLOCK != 0) abort('input must be whole 64-byte blocks')
  const width = load<u32>(ptr, 4)
  const height = load<u32>(ptr, 8)
  const maxIter = load<u32>(ptr, 12)
  const firstRow = load<u32>(ptr, 16)
  const count = len / BLOCK
  // validate the bands and find the last row
  let row = firstRow
  for (let b = 0; b < count; b++) {
    const block = ptr + <usize>(b * BLOCK)
    if (load<u32>(block) != IN_MAGIC) abort('bad block magic')
    if (load<u32>(block, 4) != width || load<u32>(block, 8) != height || load<u32>(block, 12) != maxIter) {
      abort('blocks of different images')
    }
    if (load<u32>(block, 16) != row) abort('bands are not consecutive')
    const end = load<u32>(block, 20)
    if (end < row || end > height) abort('bad band')
    row = end
  }
  if (width == 0 || maxIter == 0) abort('empty image')
  const lastRow = row
  const pixels = <usize>width * <usize>(lastRow - firstRow)
  const out = heap.alloc(4 + <usize>OUT_HEADER + pixels)
  store<u32>(out, <u32>(<usize>OUT_HEADER + pixels))
  store<u32>(out, OUT_MAGIC, 4)
  store<u32>(out, width, 8)
  store<u32>(out, firstRow, 12)
  store<u32>(out, lastRow, 16)
  let at = out + 4 + <usize>OUT_HEADER
  let scratch = heap.alloc(pixels * SCRATCH_PIXEL)
  const x0 = load<f64>(ptr, 24)
  const y0 = load<f64>(ptr, 32)
  const x1 = load<f64>(ptr, 40)
  const y1 = load<f64>(ptr, 48)
  const w = <f64>width
  const h = <f64>height
  for (let py = firstRow; py < lastRow; py++) {
    const cy = y0 + (y1 - y0) * (<f64>py + 0.5) / h
    for (let px: u32 = 0; px < width; px++) {
      const cx = x0 + (x1 - x0) * (<f64>px + 0.5) / w
      const i = escape(cx, cy, maxIter, scratch)
      const gray: u32 = i >= maxIter ? 0 : 255 - <u32>((<u64>i * 255) / <u64>maxIter)
      store<u8>(at, <u8>gray)
      at++
      scratch += SCRATCH_PIXEL
    }
  }
  return out
}

export { render as process }
