import { DEADLINE_MARGIN_MS } from '../protocol/index.js'

/**
 * Whether a job is too near its deadline to be worked on: its results must be submitted and its verifiers drawn
 * before the deadline, else its creator refunds it with the outputs in hand and nobody is paid. A peer chooses no
 * such job and stops taking turns of one it works on (`spec.deadline`: unix ms, against this machine's clock).
 */
export function pastCutoff (job: { spec: { deadline: number } }): boolean {
  return Date.now() >= job.spec.deadline - DEADLINE_MARGIN_MS
}
