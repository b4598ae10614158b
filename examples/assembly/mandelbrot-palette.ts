// jobmesh example job with a model: render row bands of a Mandelbrot image in the colours of a palette.
//
// The job names its palette as its model (`requirements.modelId` = ipfs://<cid> of 768 bytes: 256 RGB colours), so
// the peers that hold the palette run it first and the code receives it before its data (docs/protocol.md):
// Input: u32 model length (768) | the palette | the MicroJob's 64-byte blocks, as the grayscale job (mandelbrot.ts).
// Output (after the ABI's u32 length): 16-byte header
//   0 u32 magic 0x3143424d ("MBC1")   4 u32 width   8 u32 rowStart   12 u32 rowEnd
// then width * (rowEnd - rowStart) RGB pixels (3 bytes each), row by row: pixel = palette[gray], gray the
// grayscale job's value of that pixel.

import { process as renderGray } from './mandelbrot'

const PALETTE: u32 = 768
const OUT_MAGIC: u32 = 0x3143424d
const HEADER: usize = 16

export function alloc(len: i32): usize {
  return heap.alloc(<usize>max(len, 1))
}

function paint(ptr: usize, len: i32): usize {
  if (len < 4) abort('input must start with the palette')
  const modelLen = load<u32>(ptr)
  if (modelLen != PALETTE || <u32>len < 4 + PALETTE) abort('the model must be a 768-byte RGB palette')
  const palette = ptr + 4
  // the grayscale tile: u32 length, 16-byte header, then one gray byte per pixel
  const gray = renderGray(palette + <usize>PALETTE, len - 4 - <i32>PALETTE)
  const pixels = <usize>load<u32>(gray) - HEADER
  const size = HEADER + pixels * 3
  const out = heap.alloc(4 + size)
  store<u32>(out, <u32>size)
  store<u32>(out, OUT_MAGIC, 4)
  memory.copy(out + 8, gray + 8, 12)
  const src = gray + 4 + HEADER
  const dst = out + 4 + HEADER
  for (let i: usize = 0; i < pixels; i++) {
    memory.copy(dst + i * 3, palette + <usize>load<u8>(src + i) * 3, 3)
  }
  return out
}

export { paint as process }
