/** The types of the job ABI's functions, read from a module's binary (the JS API does not expose them on Node 20). */
import { InvalidWasmError, MissingExportError } from './errors.js'
import { FUNC_TYPE, SECTION_EXPORT, SECTION_FUNCTION, SECTION_IMPORT, SECTION_TYPE, sections } from './wasm-binary.js'
import { Reader } from './wasm-reader.js'

const KIND_FUNCTION = 0x00
const I32 = 0x7f

const TYPE_NAMES = new Map([[0x7f, 'i32'], [0x7e, 'i64'], [0x7d, 'f32'], [0x7c, 'f64'], [0x7b, 'v128'], [0x70, 'funcref'], [0x6f, 'externref']])

interface FuncType { params: number[], results: number[] }

/** `alloc(len: i32) -> i32`, `process(ptr: i32, len: i32) -> i32` (docs/executor.md, The ABI). */
export const ABI_SIGNATURES: ReadonlyArray<readonly [string, FuncType]> = [
  ['alloc', { params: [I32], results: [I32] }],
  ['process', { params: [I32, I32], results: [I32] }]
]

const same = (a: number[], b: number[]): boolean => a.length === b.length && a.every((t, i) => t === b[i])

function typeText ({ params, results }: FuncType): string {
  const names = (types: number[]): string => types.map(t => TYPE_NAMES.get(t) ?? `0x${t.toString(16)}`).join(', ')
  return `(${names(params)}) -> ${results.length === 1 ? names(results) : `(${names(results)})`}`
}

function name (r: Reader): string {
  const length = r.u32()
  return new TextDecoder().decode(Uint8Array.from({ length }, () => r.byte()))
}

function valueTypes (r: Reader): number[] {
  return Array.from({ length: r.u32() }, () => r.byte())
}

/**
 * Refuses a module whose `alloc` or `process` export has another type than the ABI's: a `process` that returns
 * nothing, or takes an i64, compiles and passes the export check, and then fails every run on every peer (its job
 * funded and never completed). Meant for a module V8 compiled and {@link checkJobModule} accepted (every import a
 * function, every value type one byte).
 *
 * @throws MissingExportError
 */
export function checkAbiSignatures (bytes: Uint8Array, abi: string): void {
  const types: FuncType[] = []
  const funcTypes: number[] = []
  const exports = new Map<string, number>()
  for (const section of sections(bytes)) {
    const r = new Reader(bytes, section.contentStart, section.end)
    if (section.id === SECTION_TYPE) {
      for (let i = 0, n = r.u32(); i < n; i++) {
        if (r.byte() !== FUNC_TYPE) throw new InvalidWasmError(`Type ${i} is not a function type`)
        types.push({ params: valueTypes(r), results: valueTypes(r) })
      }
    } else if (section.id === SECTION_IMPORT) {
      for (let i = 0, n = r.u32(); i < n; i++) {
        const what = `${name(r)}.${name(r)}`
        if (r.byte() !== KIND_FUNCTION) throw new InvalidWasmError(`Import ${what} is not a function`)
        funcTypes.push(r.u32())
      }
    } else if (section.id === SECTION_FUNCTION) {
      for (let i = 0, n = r.u32(); i < n; i++) funcTypes.push(r.u32())
    } else if (section.id === SECTION_EXPORT) {
      for (let i = 0, n = r.u32(); i < n; i++) {
        const exported = name(r)
        const kind = r.byte()
        const index = r.u32()
        if (kind === KIND_FUNCTION) exports.set(exported, index)
      }
    }
  }
  for (const [fn, expected] of ABI_SIGNATURES) {
    const index = exports.get(fn)
    if (index === undefined) continue // checkJobModule names a missing export
    const actual = types[funcTypes[index]]
    if (actual === undefined) throw new InvalidWasmError(`Function ${index} ("${fn}") has no type`)
    if (same(actual.params, expected.params) && same(actual.results, expected.results)) continue
    throw new MissingExportError(`Module exports "${fn}" as a function ${typeText(actual)}, not ${typeText(expected)} (${abi})`)
  }
}
