import { JOBS_TOPIC } from './constants.js'

/** `/jobmesh/1/jobs` */
export function jobsTopic (): string {
  return JOBS_TOPIC
}

/** `/jobmesh/1/job/<jobId>/macro` */
export function macroTopic (jobId: string): string {
  return `/jobmesh/1/job/${jobId}/macro`
}

/** `/jobmesh/1/job/<jobId>/macro/<macroId>`: the MacroJob room. */
export function roomTopic (jobId: string, macroId: string): string {
  return `/jobmesh/1/job/${jobId}/macro/${macroId}`
}
