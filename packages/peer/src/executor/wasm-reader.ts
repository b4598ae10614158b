/** A cursor over a job module's bytes and the readers of its value and reference types (`wasm-features.ts`). */
import { InvalidWasmError } from './errors.js'
import { readU32 } from './wasm-binary.js'

/** i32, i64, f32, f64, v128, funcref, externref: every value type whose operations give the same result everywhere. */
const VALUE_TYPES = new Set([0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f])

/** Value types of WasmGC and typed references (and exnref), by their one-byte code, for the message. */
const REFUSED_VALUE_TYPES = new Map([
  [0x63, 'ref null'], [0x64, 'ref'], [0x6e, 'anyref'], [0x6d, 'eqref'], [0x6c, 'i31ref'], [0x6b, 'structref'],
  [0x6a, 'arrayref'], [0x71, 'nullref'], [0x72, 'nullexternref'], [0x73, 'nullfuncref'], [0x69, 'exnref'],
  [0x74, 'nullexnref']
])

/** A cursor over `bytes[pos, end)`: every read past `end` is an InvalidWasmError. */
export class Reader {
  pos: number
  private readonly bytes: Uint8Array

  constructor (bytes: Uint8Array, pos: number, end: number) {
    this.bytes = bytes.subarray(0, end)
    this.pos = pos
  }

  get end (): number {
    return this.bytes.length
  }

  byte (): number {
    if (this.pos >= this.bytes.length) throw new InvalidWasmError(`Truncated module at byte ${this.pos}`)
    return this.bytes[this.pos++]
  }

  peek (): number {
    if (this.pos >= this.bytes.length) throw new InvalidWasmError(`Truncated module at byte ${this.pos}`)
    return this.bytes[this.pos]
  }

  u32 (): number {
    const { value, next } = readU32(this.bytes, this.pos)
    this.pos = next
    return value
  }

  /** Skips a signed LEB128 number of at most `maxBytes` bytes (5 for s32 and s33, 10 for s64). */
  signed (maxBytes: number): void {
    for (let i = 0; i < maxBytes; i++) {
      if ((this.byte() & 0x80) === 0) return
    }
    throw new InvalidWasmError('Signed LEB128 number too long')
  }

  skip (count: number): void {
    if (this.pos + count > this.bytes.length) throw new InvalidWasmError(`Truncated module at byte ${this.pos}`)
    this.pos += count
  }

  /** A reader over the next `length` bytes, which this one then skips. */
  sub (length: number): Reader {
    const end = this.pos + length
    if (end > this.bytes.length) throw new InvalidWasmError(`Truncated module: ${length} bytes at byte ${this.pos} run past their section`)
    const out = new Reader(this.bytes, this.pos, end)
    this.pos = end
    return out
  }

  /** Refuses bytes left over after the last entry of a section or a function body. */
  expectEnd (what: string): void {
    if (this.pos !== this.bytes.length) throw new InvalidWasmError(`Malformed ${what}: it ends at byte ${this.pos}, its size says ${this.bytes.length}`)
  }
}

/** A byte as `0x..`, for messages. */
export function hex (value: number): string {
  return `0x${value.toString(16).padStart(2, '0')}`
}

export function valueType (r: Reader): void {
  const at = r.pos
  const type = r.byte()
  if (VALUE_TYPES.has(type)) return
  const name = REFUSED_VALUE_TYPES.get(type)
  throw new InvalidWasmError(`Module uses value type ${hex(type)}${name == null ? '' : ` (${name})`} (byte ${at}), ` +
    'a WasmGC/typed-reference type, which jobmesh does not run')
}

export function valueTypes (r: Reader): void {
  const count = r.u32()
  for (let i = 0; i < count; i++) valueType(r)
}

/** funcref or externref: the reference types of tables and element segments. */
export function refType (r: Reader): void {
  const at = r.pos
  const type = r.byte()
  if (type !== 0x70 && type !== 0x6f) {
    throw new InvalidWasmError(`Module uses reference type ${hex(type)} (byte ${at}), a WasmGC/typed-reference type, which jobmesh does not run`)
  }
}
