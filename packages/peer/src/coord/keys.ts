import { RESULT_SLOT_CHARS } from './constants.js'
import { JobAnnouncement } from './pb/coord.js'

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

/**
 * Key of a peer's results of one queue turn in MacroJob `macroIndex`: `<macroIndex>@<first>.<term>/<slot>`, named by
 * the turn's first MicroJob and its lease term (a peer holds a MicroJob's lease of a given term once, so the key is
 * never reused by the same signer).
 */
export function turnResultKey (macroIndex: number, first: number, term: number, peerId: string): string {
  return `${turnName(macroIndex, first, term)}/${resultSlot(peerId)}`
}

/** A turn record's name, `<macroIndex>@<first>.<term>`: its key without the slot, and the end of its signing domain. */
export function turnName (macroIndex: number, first: number, term: number): string {
  return `${macroIndex}@${first}.${term}`
}

/**
 * An index as keys spell it: a canonical decimal integer (`0`, `17`; not `01`, `+1`, ` 1` or `1e1`, which `Number`
 * would read as the same number). A key another spelling of a canonical one would be counted by one reader and missed
 * by another that matches key prefixes (settlement's `list`), so every reader parses indices with this.
 */
export function keyIndex (text: string): number | undefined {
  return /^(0|[1-9][0-9]{0,8})$/.test(text) ? Number(text) : undefined
}

/**
 * The MacroJob a `results` (or `micro`) key names: `<m>.<i>/<slot>`, `<m>@<first>.<term>/<slot>` or `<m>.<i>`; undefined
 * for a malformed key.
 */
export function macroOfResultKey (key: string): number | undefined {
  const end = key.search(/[.@]/)
  return end <= 0 ? undefined : keyIndex(key.slice(0, end))
}

/** The MacroJob of a turn results key (`<macroIndex>@...`), or undefined for any other key. */
export function turnMacroIndex (key: string): number | undefined {
  const at = key.indexOf('@')
  return at <= 0 ? undefined : keyIndex(key.slice(0, at))
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

/** Signing domain of the `summary` records of a job round (one per finished MacroJob, key = its index). */
export function summaryScope (jobId: string): string {
  return `jobmesh/summary/${jobId}`
}

export function failureScope (jobId: string): string {
  return `jobmesh/failure/${jobId}`
}

/**
 * Parses a `results` (or `failures`) key into the part before the slot and the slot: `micro` is the MicroJob key
 * (`m.i`) of a one-MicroJob record, or the turn name (`m@first.term`) of a turn record. The record's signing domain
 * is `<scope>/<micro>` either way.
 */
export function parseResultKey (key: string): { micro: string, slot: string } | undefined {
  const slash = key.indexOf('/')
  if (slash < 0) {
    return undefined
  }
  return { micro: key.slice(0, slash), slot: key.slice(slash + 1) }
}

/**
 * Key of an announcement in the index's `jobs` map: the job id it names, lower-case 0x hex (undefined when the payload
 * is not an announcement). A record stored under another key is not that key's announcement.
 */
export function announcementKey (payload: Uint8Array): string | undefined {
  try {
    return `0x${Buffer.from(JobAnnouncement.decode(payload).jobId).toString('hex')}`
  } catch {
    return undefined
  }
}
