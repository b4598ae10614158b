import { RESULT_SLOT_CHARS } from './constants.js'

/** Key of a MicroJob in the `micro` map: `<macroIndex>.<index>` (short keys keep the doc small). */
export function microKey (macroIndex: number, index: number): string {
  return `${macroIndex}.${index}`
}

/** Key of a MacroJob in the `macro` map: its index. */
export function macroKey (macroIndex: number): string {
  return String(macroIndex)
}

/** The slot a signer owns in `results`: the last characters of its PeerId. */
export function resultSlot (peerId: string): string {
  return peerId.slice(-RESULT_SLOT_CHARS)
}

/** Key of a peer's result for a MicroJob: `<macroIndex>.<index>/<slot>`. */
export function resultKey (macroIndex: number, index: number, peerId: string): string {
  return `${microKey(macroIndex, index)}/${resultSlot(peerId)}`
}

/** Signing domains, binding a record to its job, map and key. */
export function macroScope (jobId: string): string {
  return `jobmesh/macro/${jobId}`
}

export function microScope (jobId: string): string {
  return `jobmesh/micro/${jobId}`
}

export function resultScope (jobId: string): string {
  return `jobmesh/result/${jobId}`
}

export function failureScope (jobId: string): string {
  return `jobmesh/failure/${jobId}`
}

/** Parses a `results` key into its MicroJob key and slot. */
export function parseResultKey (key: string): { micro: string, slot: string } | undefined {
  const slash = key.indexOf('/')
  if (slash < 0) {
    return undefined
  }
  return { micro: key.slice(0, slash), slot: key.slice(slash + 1) }
}
