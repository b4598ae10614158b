import { DOC_TOPIC_PREFIX, INDEX_DOC, JOB_DOC_PREFIX } from './constants.js'
import { InvalidDocNameError } from './errors.js'

const MAX_NAME_LENGTH = 200

/** The index doc name, `jobmesh/index`. */
export function indexDocName (): string {
  return INDEX_DOC
}

/** The doc name of a job, `jobmesh/job/<jobId>`. */
export function jobDocName (jobId: string): string {
  return `${JOB_DOC_PREFIX}${jobId.toLowerCase()}`
}

/**
 * The doc name of a job's processing round (round = rejections on chain): `jobmesh/job/<jobId>` for round 0 (the
 * {@link jobDocName}), `jobmesh/job/<jobId>/r<round>` after `round` rejections.
 */
export function roundDocName (jobId: string, round: number): string {
  return round === 0 ? jobDocName(jobId) : `${jobDocName(jobId)}/r${round}`
}

/**
 * The doc of MacroJob `macroIndex` of a job round (its MicroJob leases and results): `<roundDocName>/m<macroIndex>`.
 * Only the MacroJob's room members hold it while they work (docs/coordination.md, A doc per MacroJob).
 */
export function macroDocName (roundDoc: string, macroIndex: number): string {
  return `${roundDoc}/m${macroIndex}`
}

/** The round key (`<jobId>` or `<jobId>/r<round>`) of a job or MacroJob doc name, or undefined for other names. */
export function jobIdOfDoc (name: string): string | undefined {
  return name.startsWith(JOB_DOC_PREFIX) ? name.slice(JOB_DOC_PREFIX.length).replace(/\/m\d+$/, '') : undefined
}

/** The names among `names` of one job's docs: every round's job doc and MacroJob docs. */
export function docsOfJob (names: Iterable<string>, jobId: string): string[] {
  const id = jobId.toLowerCase()
  return [...names].filter(name => jobIdOfDoc(name)?.split('/')[0] === id)
}

/** The gossipsub topic of a doc, `/jobmesh/1/doc/<name>`. */
export function docTopic (name: string): string {
  return `${DOC_TOPIC_PREFIX}${name}`
}

/** The doc name of a doc topic, or undefined for other topics. */
export function docNameOfTopic (topic: string): string | undefined {
  return topic.startsWith(DOC_TOPIC_PREFIX) ? topic.slice(DOC_TOPIC_PREFIX.length) : undefined
}

/** Throws {@link InvalidDocNameError} unless `name` is 1..200 printable characters. */
export function assertDocName (name: string): void {
  // eslint-disable-next-line no-control-regex
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new InvalidDocNameError(`bad doc name ${JSON.stringify(name)}`)
  }
}
