import { MalformedJobSpecEncodingError } from './errors.js'
import { parseJobSpec } from './job-spec.js'
import type { JobSpec } from './job-spec.js'

/** JSON value with bigints rendered as decimal strings and object keys sorted (code unit order). */
function canonical (value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString(10)
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key]
      if (v !== undefined) out[key] = canonical(v)
    }
    return out
  }
  return value
}

/**
 * Canonical encoding of a JobSpec: UTF-8 JSON without whitespace, object keys sorted, bigints (`seed`, `price`) as
 * decimal strings, absent optional fields omitted. The same spec always gives the same bytes, hence the same CID.
 */
export function encodeJobSpec (spec: JobSpec): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(canonical(spec)))
}

/**
 * Decodes and validates bytes made by `encodeJobSpec` (any JSON that `parseJobSpec` accepts is accepted).
 *
 * @throws MalformedJobSpecEncodingError when the bytes are not UTF-8 JSON
 * @throws InvalidJobSpecError when the JSON is not a valid JobSpec
 */
export function decodeJobSpec (bytes: Uint8Array): JobSpec {
  let json: unknown
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch (err) {
    throw new MalformedJobSpecEncodingError(`job spec bytes are not UTF-8 JSON: ${(err as Error).message}`)
  }
  return parseJobSpec(json)
}
