import { DEADLINE_MARGIN_MS } from '../protocol/index.js'

/**
 * Whether a job is too near its deadline to be worked on: its results must be submitted and its verifiers drawn
 * before the deadline, else its creator refunds it with the outputs in hand and nobody is paid. A peer chooses no
 * such job and stops taking turns of one it works on (`spec.deadline`: unix ms; `now`: the chain's time, which the
 * escrow reads deadlines against, as well as the peer knows it).
 */
export function pastCutoff (job: { spec: { deadline: number } }, now: number): boolean {
  return now >= job.spec.deadline - DEADLINE_MARGIN_MS
}
