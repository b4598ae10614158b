import type { CliIo } from './io.js'
import type { JobClient } from '../client.js'

/** Exit code after Ctrl-C (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130

/** Ctrl-C must end the process within this (ms), whatever is still running. */
const INTERRUPT_BUDGET_MS = 1_500

/** Where a submission is, for the line Ctrl-C prints. */
export interface SubmitState {
  client?: JobClient
  /** Known from the `creating` stage on, before the funding transaction is sent. */
  jobId?: string
  /** `creating`: the funding transaction may be in flight; `funded`: it was mined. */
  phase: 'preparing' | 'creating' | 'funded'
  /** Set on Ctrl-C: the interrupt handler owns the client and the end of the process from then on. */
  interrupted?: boolean
}

async function fundedNow (client: JobClient, jobId: string, ms: number): Promise<boolean | Error> {
  try {
    await client.status(jobId, { signal: AbortSignal.timeout(ms) })
    return true
  } catch (err) {
    return (err as Error).name === 'JobNotFoundError' ? false : err as Error
  }
}

/** The line that says whether the job was funded. */
export async function interruptLine (state: SubmitState, budgetMs: number): Promise<string> {
  const id = state.jobId
  if (id === undefined || state.phase === 'preparing') return 'interrupted: no job was created, nothing was paid'
  const follow = `follow it with: jobmesh-dapp wait ${id}`
  if (state.phase === 'funded') return `interrupted: job ${id} is funded and goes on without this process; ${follow}`
  const funded = state.client === undefined ? new Error('no client') : await fundedNow(state.client, id, budgetMs)
  if (funded === true) return `interrupted: job ${id} is funded and goes on without this process; ${follow}`
  if (funded === false) return `interrupted: job ${id} is not funded (its funding transaction was not mined; if it was sent it may still be: jobmesh-dapp status ${id})`
  return `interrupted: cannot tell whether job ${id} is funded (${funded.name}: ${funded.message}): jobmesh-dapp status ${id}`
}

/**
 * Handles Ctrl-C during `submit`: aborts what runs, prints whether the job was funded and ends the process within
 * 2 s (a second Ctrl-C ends it at once). Returns the remover of the handler.
 */
export function onSubmitInterrupt (io: CliIo, state: SubmitState, abort: () => void): () => void {
  if (io.onInterrupt === undefined) return () => {}
  let interrupted = false
  return io.onInterrupt(() => {
    if (interrupted) {
      io.exit?.(EXIT_INTERRUPTED)
      return
    }
    interrupted = true
    state.interrupted = true
    abort()
    const hard = setTimeout(() => {
      io.err(`interrupted${state.jobId === undefined ? '' : `: check job ${state.jobId} with jobmesh-dapp status ${state.jobId}`}`)
      io.exit?.(EXIT_INTERRUPTED)
    }, INTERRUPT_BUDGET_MS)
    void interruptLine(state, INTERRUPT_BUDGET_MS - 500).then(line => {
      clearTimeout(hard)
      io.err(line)
      io.exit?.(EXIT_INTERRUPTED)
    })
  })
}

/** Ctrl-C during the other commands: stop at once (nothing they do costs money). */
export function onInterruptExit (io: CliIo): () => void {
  if (io.onInterrupt === undefined) return () => {}
  return io.onInterrupt(() => {
    io.err('interrupted')
    io.exit?.(EXIT_INTERRUPTED)
  })
}
