import { macroDocName } from '../crdt/index.js'
import { MICRO_MAP, RESULTS_MAP } from './constants.js'
import { MacroDocNotOpenError } from './errors.js'
import { macroOfResultKey, microScope } from './keys.js'
import { countingResult, resultTable } from './results.js'
import type { Lease, Leases, LeaseTable } from './leases.js'
import type { JobProgress } from './progress.js'
import type { MacroSize, Result, ResultsComponents, ResultTable } from './results.js'
import type { OpenOptions } from '../crdt/index.js'
import type * as Y from 'yjs'

/** One MacroJob's doc (`macroDocName`): its MicroJob leases and results. */
export interface MacroDoc {
  doc: Y.Doc
  microLeases: LeaseTable
  results: ResultTable
}

export interface MacroDocsComponents extends ResultsComponents {
  docs: { open(name: string, options?: OpenOptions): Promise<Y.Doc> }
  leases: Pick<Leases, 'table'>
}

export interface MacroDocsInit {
  /** The doc name of the job round (`roundDocName`): MacroJob m's doc is `<roundDoc>/m<m>`. */
  roundDoc: string
  /** The round's signing key (`roundKey`: `<jobId>` or `<jobId>/r<round>`). */
  jobKey: string
  size?: MacroSize
  /** Called once per MacroJob doc when it is first open here (the processor follows its results). */
  onOpen?(macroIndex: number, doc: MacroDoc): void
}

/**
 * The MacroJob docs of one job round (docs/coordination.md, A doc per MacroJob): MacroJob m's MicroJob leases and
 * results live in a doc of their own, which only its room's members hold while they work; a reader opens the ones it
 * needs. `microLeases` and `results` are tables over every doc open here, each call going to its key's MacroJob; a
 * MacroJob whose doc is not open has no leases and no results here.
 */
export interface MacroDocs {
  /** The doc of MacroJob m when open here. */
  get(macroIndex: number): MacroDoc | undefined
  /**
   * Opens MacroJob m's doc (once; concurrent calls share the open). `follow: false` reads it without subscribing
   * (`OpenOptions.follow`); a later open that follows subscribes it.
   */
  open(macroIndex: number, options?: OpenOptions): Promise<MacroDoc>
  readonly microLeases: LeaseTable
  readonly results: ResultTable
  /**
   * Runs `fn` in one transaction of MacroJob m's doc.
   *
   * @throws MacroDocNotOpenError when it is not open here
   */
  transact(macroIndex: number, fn: () => void): void
}

export function macroDocs (components: MacroDocsComponents, init: MacroDocsInit): MacroDocs {
  const open = new Map<number, MacroDoc>()
  const opening = new Map<number, Promise<MacroDoc>>()
  const followed = new Set<number>()
  const openOne = async (m: number, options?: OpenOptions): Promise<MacroDoc> => {
    const doc = await components.docs.open(macroDocName(init.roundDoc, m), options)
    if (options?.follow !== false) followed.add(m)
    const known = open.get(m)
    if (known != null) return known
    const md: MacroDoc = {
      doc,
      microLeases: components.leases.table(doc.getMap<Uint8Array>(MICRO_MAP), microScope(init.jobKey)),
      results: resultTable(components, doc.getMap<Uint8Array>(RESULTS_MAP), init.jobKey, init.size)
    }
    open.set(m, md)
    init.onOpen?.(m, md)
    return md
  }
  return {
    get: (m) => open.get(m),
    async open (m, options) {
      let md = open.get(m)
      if (md == null) {
        let pending = opening.get(m)
        if (pending == null) {
          pending = openOne(m, options).finally(() => { opening.delete(m) })
          opening.set(m, pending)
        }
        md = await pending
      }
      if (options?.follow !== false && !followed.has(m)) {
        // read before (follow: false), followed now: the store subscribes it and catches up
        await components.docs.open(macroDocName(init.roundDoc, m), options)
        followed.add(m)
      }
      return md
    },
    microLeases: routedLeases(open),
    results: routedResults(open),
    transact (m, fn) {
      const md = open.get(m)
      if (md == null) throw new MacroDocNotOpenError(`the doc of MacroJob ${m} is not open`)
      md.doc.transact(fn)
    }
  }
}

/** The MacroJob of a `micro` key (`m.i`); -1 (no MacroJob) for a malformed key. */
function macroOf (key: string): number {
  return macroOfResultKey(key) ?? -1
}

/** `items` grouped by their MacroJob, each group in the items' order (a turn's writes go one doc at a time). */
export function byMacroJob<T> (items: Iterable<T>, macroIndex: (item: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>()
  for (const item of items) {
    const m = macroIndex(item)
    const group = out.get(m)
    if (group == null) out.set(m, [item])
    else group.push(item)
  }
  return out
}

function routedLeases (docs: Map<number, MacroDoc>): LeaseTable {
  const table = (key: string): LeaseTable | undefined => docs.get(macroOf(key))?.microLeases
  const must = (key: string): LeaseTable => {
    const t = table(key)
    if (t == null) throw new MacroDocNotOpenError(`the doc of MicroJob ${key}'s MacroJob is not open`)
    return t
  }
  return {
    get: (key) => table(key)?.get(key),
    raw: (key) => table(key)?.raw(key),
    isOpen: (key) => table(key)?.isOpen(key) ?? true,
    holds: (key, term) => table(key)?.holds(key, term) ?? false,
    take: (key, options) => must(key).take(key, options),
    claim: async (key, options) => must(key).claim(key, options),
    renew: (key, term) => table(key)?.renew(key, term),
    release: (key, term) => { table(key)?.release(key, term) },
    drop: (key, term) => { table(key)?.drop(key, term) },
    takeMany: (keys) => {
      const out = new Map<string, Lease>()
      for (const group of byMacroJob(keys, macroOf).values()) {
        for (const [key, lease] of must(group[0]).takeMany(group)) out.set(key, lease)
      }
      return out
    }
  }
}

function routedResults (docs: Map<number, MacroDoc>): ResultTable {
  const must = (m: number): ResultTable => {
    const t = docs.get(m)?.results
    if (t == null) throw new MacroDocNotOpenError(`the doc of MacroJob ${m} is not open`)
    return t
  }
  const list = (m: number, i: number): Result[] => docs.get(m)?.results.list(m, i) ?? []
  return {
    write: (m, i, result) => { must(m).write(m, i, result) },
    writeTurn: (m, items) => { must(m).writeTurn(m, items) },
    list,
    counting: (m, i, lease) => countingResult(list(m, i), lease),
    // a doc's records of another MacroJob are nobody's results (settlement reads MacroJob m in m's doc only)
    doneKeys: () => new Set([...docs].flatMap(([m, d]) => [...d.results.doneKeys()].filter(key => macroOf(key) === m)))
  }
}

/**
 * Opens the docs of MacroJobs `0..count - 1` of a round (in parallel, each with its catch-up) and counts their results
 * in `progress`: for a reader of a whole job (the SDK's progress, `describe`). Returns the docs' names.
 */
export async function followMacroDocs (docs: MacroDocsComponents['docs'], progress: Pick<JobProgress, 'watch'>, roundDoc: string,
  count: number, options?: OpenOptions): Promise<string[]> {
  const names = Array.from({ length: count }, (_, m) => macroDocName(roundDoc, m))
  const opened = await Promise.all(names.map(async name => await docs.open(name, options)))
  for (const [m, doc] of opened.entries()) progress.watch(doc.getMap<Uint8Array>(RESULTS_MAP), m)
  return names
}
