import { timeoutSignal } from '@jobmesh/contracts'
import { interruptedExitCode } from './io.js'
import type { CliIo } from './io.js'
import type { JobClient } from '../client.js'
import type { SubmittedJob } from '../submit.js'

/** How long the chain is asked whether an interrupted job is funded (ms). */
const INTERRUPT_BUDGET_MS = 1_500

/** Where a submission is, for the line Ctrl-C prints. */
export interface SubmitState {
  client?: JobClient
  /** Known from the `creating` stage on, before the funding transaction is sent. */
  jobId?: string
  /**
   * `preparing`: nothing sent yet; `creating`: the funding transaction may be in flight; `announcing`: funded, being
   * announced and its inputs handed to peers; `submitted`: `submit` returned (funded, announced, inputs offered).
   */
  phase: 'preparing' | 'creating' | 'announcing' | 'submitted'
  /** The submission in flight (from `creating` on): a Ctrl-C then waits for it instead of stranding a paid job. */
  submission?: Promise<SubmittedJob>
  /** What `submit` returned (phase `submitted`). */
  job?: SubmittedJob
  /** Set on Ctrl-C: the interrupt handler owns the client and the end of the process from then on. */
  interrupted?: boolean
}

async function fundedNow (client: JobClient, jobId: string, ms: number): Promise<boolean | Error> {
  try {
    await client.status(jobId, { signal: timeoutSignal(ms) })
    return true
  } catch (err) {
    return (err as Error).name === 'JobNotFoundError' ? false : err as Error
  }
}

/** The line after a submission that failed while Ctrl-C waited for it: funded or not, as the chain says. */
async function failedLine (state: SubmitState, err: Error, budgetMs: number): Promise<string> {
  const id = state.jobId ?? ''
  const why = `${err.name}: ${err.message}`
  const funded = state.client === undefined ? new Error('no client') : await fundedNow(state.client, id, budgetMs)
  if (funded === false) return `interrupted: job ${id} is not funded (${why})`
  if (funded === true) {
    return `interrupted: job ${id} is funded but its submission failed (${why}): peers may not run it; jobmesh-dapp describe ${id} tells, ` +
      `and jobmesh-dapp refund ${id} takes the fee back after its deadline`
  }
  return `interrupted: cannot tell whether job ${id} is funded (${why}; ${funded.name}: ${funded.message}): jobmesh-dapp status ${id}`
}

/** The line once a submission Ctrl-C waited for is through. */
function submittedLine (job: SubmittedJob): string {
  const follow = `follow it with: jobmesh-dapp wait ${job.jobId}`
  if (job.holders.length > 0) return `interrupted: job ${job.jobId} is funded and goes on without this process; ${follow}`
  return `interrupted: job ${job.jobId} is funded and announced, but no peer confirmed it holds the job's code and data, which ` +
    `only this process had: peers may not be able to start it; ${follow}, or take the fee back after its deadline with ` +
    `jobmesh-dapp refund ${job.jobId}`
}

/** The line for a Ctrl-C that stops the process at once (before anything was sent, or after `submit` returned). */
export function interruptLine (state: SubmitState): string {
  if (state.jobId === undefined || state.phase === 'preparing') return 'interrupted: no job was created, nothing was paid'
  if (state.phase === 'submitted' && state.job !== undefined) return submittedLine(state.job)
  // a second Ctrl-C while the submission was being finished
  return `stopped: job ${state.jobId} ${state.phase === 'creating' ? 'may be funded (its funding transaction was sent)' : 'is funded'} ` +
    `but may not be announced, or its code and data held by no peer: jobmesh-dapp describe ${state.jobId} tells; an unstarted job ` +
    `can be refunded after its deadline (jobmesh-dapp refund ${state.jobId})`
}

/**
 * Handles Ctrl-C (and SIGTERM, alike) during `submit`. Before anything is sent, and once `submit` returned, it aborts what runs, prints one
 * line and exits. In between (funding, announcing, handing the inputs to peers) stopping would leave a paid job that
 * no peer may ever run, so it says so and lets the submission finish, then prints whether the job is funded and held;
 * a second Ctrl-C ends the process at once. `tidy` runs before every exit (the empty `--out` folders the submit made
 * go). Returns the remover of the handler.
 */
export function onSubmitInterrupt (io: CliIo, state: SubmitState, abort: () => void, tidy: () => void = () => {}): () => void {
  if (io.onInterrupt === undefined) return () => {}
  let interrupted = false
  const exit = (code: number): void => {
    tidy()
    io.exit?.(code)
  }
  return io.onInterrupt((signal) => {
    const code = interruptedExitCode(signal)
    if (interrupted) {
      io.err(interruptLine(state))
      exit(code)
      return
    }
    interrupted = true
    state.interrupted = true
    const submission = state.submission
    if (submission !== undefined && (state.phase === 'creating' || state.phase === 'announcing')) {
      io.err(`interrupted: finishing the submission of job ${state.jobId ?? ''} so that its fee is not stranded (funding, announcement, ` +
        'a peer holding its inputs); Ctrl-C again to stop at once')
      void submission.then(
        (job) => { io.err(submittedLine(job)) },
        async (err: Error) => { io.err(await failedLine(state, err, INTERRUPT_BUDGET_MS)) }
      ).finally(() => { exit(code) })
      return
    }
    abort()
    io.err(interruptLine(state))
    exit(code)
  })
}

/** What a command does on Ctrl-C besides stopping: its `--json` document, and a synchronous tidy-up. */
export interface InterruptExitOptions {
  /** `--json`: the interruption is a failure like another, one document on stdout. */
  json?: boolean
  /** Runs before the exit (e.g. removing the empty folders `results` made). */
  tidy?(): void
  /** Set once the command has printed its outcome: a Ctrl-C while it then stops its client ends it with 0, quietly. */
  finished?: boolean
}

/** Ctrl-C (or SIGTERM) during the other commands: stop at once (nothing they do costs money). */
export function onInterruptExit (io: CliIo, options: InterruptExitOptions = {}): () => void {
  if (io.onInterrupt === undefined) return () => {}
  return io.onInterrupt((signal) => {
    if (options.finished === true) {
      io.exit?.(0)
      return
    }
    try {
      options.tidy?.()
    } catch {
      // a tidy-up that failed leaves what it could not take back; the exit goes on
    }
    io.err('interrupted')
    if (options.json === true) io.out(JSON.stringify({ error: { name: 'InterruptedError', message: `interrupted (${signal})`, signal } }))
    io.exit?.(interruptedExitCode(signal))
  })
}
