import { InvalidWasmError, TableLimitError } from './errors.js'

const MAGIC = [0x00, 0x61, 0x73, 0x6d]
const VERSION = [0x01, 0x00, 0x00, 0x00]
/** The ids of the module sections read here and by the checks (WebAssembly core spec, 5.5.2). */
export const SECTION_TYPE = 1
export const SECTION_IMPORT = 2
export const SECTION_FUNCTION = 3
export const SECTION_TABLE = 4
export const SECTION_MEMORY = 5
export const SECTION_GLOBAL = 6
export const SECTION_EXPORT = 7
export const SECTION_ELEMENT = 9
export const SECTION_CODE = 10
export const SECTION_DATA = 11
/** The form byte of a function type in the type section. */
export const FUNC_TYPE = 0x60

/** The limits of a module's own (not imported) memory. */
export interface MemoryLimits {
  /** Declared minimum, in pages. */
  min: number
  /** Declared maximum, in pages, when the module declares one. */
  max?: number
}

/** A section of a module: its id and where its bytes are. */
export interface Section {
  id: number
  /** Offset of the section id byte. */
  start: number
  /** Offset of the first content byte. */
  contentStart: number
  /** Offset after the last content byte. */
  end: number
}

/**
 * Reads an unsigned LEB128 number of at most 32 bits.
 */
export function readU32 (bytes: Uint8Array, offset: number): { value: number, next: number } {
  let value = 0
  let shift = 0
  for (let i = 0; i < 5; i++) {
    const at = offset + i
    if (at >= bytes.length) {
      throw new InvalidWasmError('Truncated LEB128 number')
    }
    const byte = bytes[at]
    value += (byte & 0x7f) * 2 ** shift
    shift += 7
    if ((byte & 0x80) === 0) {
      if (value > 0xffffffff) {
        throw new InvalidWasmError('LEB128 number out of range')
      }
      return { value, next: at + 1 }
    }
  }
  throw new InvalidWasmError('LEB128 number too long')
}

/** Encodes an unsigned LEB128 number. */
export function encodeU32 (value: number): number[] {
  const out: number[] = []
  let v = value >>> 0
  do {
    let byte = v & 0x7f
    v >>>= 7
    if (v !== 0) {
      byte |= 0x80
    }
    out.push(byte)
  } while (v !== 0)
  return out
}

/**
 * Checks that `bytes` start as a WebAssembly binary: the magic number and version 1. An empty file says so.
 *
 * @throws InvalidWasmError
 */
export function checkHeader (bytes: Uint8Array): void {
  if (bytes.length === 0) {
    throw new InvalidWasmError('Not a WebAssembly module (the file is empty)')
  }
  if (bytes.length < 8 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new InvalidWasmError('Not a WebAssembly module (bad magic number)')
  }
  if (VERSION.some((b, i) => bytes[4 + i] !== b)) {
    throw new InvalidWasmError('Unsupported WebAssembly binary version')
  }
}

/**
 * The module's sections in order, after checking the magic number and version; every section lies within `bytes`.
 *
 * @throws InvalidWasmError
 */
export function sections (bytes: Uint8Array): Section[] {
  checkHeader(bytes)
  const out: Section[] = []
  let offset = 8
  while (offset < bytes.length) {
    const id = bytes[offset]
    const size = readU32(bytes, offset + 1)
    const end = size.next + size.value
    if (end > bytes.length) {
      throw new InvalidWasmError(`Section ${id} runs past the end of the module`)
    }
    out.push({ id, start: offset, contentStart: size.next, end })
    offset = end
  }
  return out
}

function readLimits (bytes: Uint8Array, offset: number): { limits: MemoryLimits, next: number } {
  const flags = bytes[offset]
  if ((flags & 0x02) !== 0) {
    throw new InvalidWasmError('Shared memory is not supported (jobs are single-threaded and deterministic)')
  }
  if ((flags & ~0x01) !== 0) {
    throw new InvalidWasmError('Only 32-bit memory is supported')
  }
  const min = readU32(bytes, offset + 1)
  if ((flags & 0x01) === 0) {
    return { limits: { min: min.value }, next: min.next }
  }
  const max = readU32(bytes, min.next)
  return { limits: { min: min.value, max: max.value }, next: max.next }
}

/**
 * Finds the module's own memory, rejecting imported memories, shared or 64-bit memories and multiple memories.
 * Returns `undefined` when the module has no memory section.
 */
export function readMemoryLimits (bytes: Uint8Array): MemoryLimits | undefined {
  const all = sections(bytes)
  const memory = all.filter(s => s.id === SECTION_MEMORY)
  if (memory.length > 1) {
    throw new InvalidWasmError('More than one memory section')
  }
  if (memory.length === 0) {
    return undefined
  }
  const count = readU32(bytes, memory[0].contentStart)
  if (count.value === 0) {
    return undefined
  }
  if (count.value > 1) {
    throw new InvalidWasmError('More than one memory is not supported')
  }
  return readLimits(bytes, count.next).limits
}

/**
 * Returns a copy of the module whose memory declares `max = min(declared max, maxPages)`, so the engine refuses
 * `memory.grow` beyond `maxPages`. Everything else is byte-for-byte unchanged. Returns the input itself when the
 * module has no memory or already declares a small enough maximum.
 */
export function capMemory (bytes: Uint8Array, maxPages: number): Uint8Array {
  const memory = sections(bytes).find(s => s.id === SECTION_MEMORY)
  if (memory == null) {
    return bytes
  }
  const count = readU32(bytes, memory.contentStart)
  if (count.value !== 1) {
    return bytes
  }
  const { limits, next } = readLimits(bytes, count.next)
  if (limits.max != null && limits.max <= maxPages) {
    return bytes
  }
  if (next !== memory.end) {
    throw new InvalidWasmError('Malformed memory section')
  }
  return replaceSection(bytes, memory, [...encodeU32(1), 0x01, ...encodeU32(limits.min), ...encodeU32(maxPages)])
}

/** A copy of the module with `section`'s content replaced by `content` (its id kept), everything else unchanged. */
function replaceSection (bytes: Uint8Array, section: Section, content: number[]): Uint8Array {
  const header = [section.id, ...encodeU32(content.length)]
  const out = new Uint8Array(bytes.length - (section.end - section.start) + header.length + content.length)
  out.set(bytes.subarray(0, section.start), 0)
  out.set(header, section.start)
  out.set(content, section.start + header.length)
  out.set(bytes.subarray(section.end), section.start + header.length + content.length)
  return out
}

/** The module's own table (its reference type byte and limits), when it has one; more than one is refused. */
function ownTable (bytes: Uint8Array): { section: Section, refType: number, limits: MemoryLimits, next: number } | undefined {
  const tables = sections(bytes).filter(s => s.id === SECTION_TABLE)
  if (tables.length > 1) throw new TableLimitError('More than one table section')
  if (tables.length === 0) return undefined
  const count = readU32(bytes, tables[0].contentStart)
  if (count.value === 0) return undefined
  if (count.value > 1) throw new TableLimitError(`Module declares ${count.value} tables; a job module may have one`)
  const refType = bytes[count.next]
  // a typed reference (0x63/0x64 and a heap type) or a table with an initial expression (0x40): not a job's table
  if (refType !== 0x70 && refType !== 0x6f) throw new InvalidWasmError(`Only a table of funcref or externref is supported (type 0x${refType?.toString(16) ?? '??'})`)
  const flags = bytes[count.next + 1]
  if (flags !== 0x00 && flags !== 0x01) throw new TableLimitError('Only a 32-bit, unshared table is supported')
  const min = readU32(bytes, count.next + 2)
  if (flags === 0x00) return { section: tables[0], refType, limits: { min: min.value }, next: min.next }
  const max = readU32(bytes, min.next)
  return { section: tables[0], refType, limits: { min: min.value, max: max.value }, next: max.next }
}

/**
 * Refuses a module whose table could hold more than `maxEntries` (declared), and returns a copy whose table
 * declares `max = min(declared max, maxEntries)`, so the engine refuses `table.grow` beyond it (it returns -1).
 * Returns the input itself when the module has no table or already declares a small enough maximum.
 *
 * @throws TableLimitError (more than one table, a table larger than `maxEntries`, a 64-bit or shared table),
 * InvalidWasmError (malformed)
 */
export function capTable (bytes: Uint8Array, maxEntries: number): Uint8Array {
  const table = ownTable(bytes)
  if (table == null) return bytes
  const { section, refType, limits, next } = table
  if (limits.min > maxEntries) {
    throw new TableLimitError(`Module declares a table of ${limits.min} entries; a job module's table may have ${maxEntries}`)
  }
  if (limits.max != null && limits.max <= maxEntries) return bytes
  if (next !== section.end) throw new InvalidWasmError('Malformed table section')
  return replaceSection(bytes, section, [...encodeU32(1), refType, 0x01, ...encodeU32(limits.min), ...encodeU32(maxEntries)])
}
