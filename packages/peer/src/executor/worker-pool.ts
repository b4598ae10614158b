import { Worker } from 'node:worker_threads'
import { logger } from '@libp2p/logger'
import {
  AbiViolationError, AbortError, ExecutionTimeoutError, ExecutorStoppedError, MemoryLimitError,
  OutputTooLargeError, WasmTrapError
} from './errors.js'
import { WORKER_SOURCE } from './worker-source.js'
import type { WasmModule } from './wasm-api.js'

const log = logger('jobmesh:executor:pool')

export interface WorkerPoolInit {
  size: number
  maxMemoryBytes: number
  maxOutputBytes: number
  workerHeapMb: number
}

export interface PoolTask {
  module: WasmModule
  input: Uint8Array
  timeoutMs: number
  signal?: AbortSignal
  /** Also hash the module's memory after the run (`PoolResult.digest`). */
  digest?: boolean
  /** This run's output limit, when below the pool's. */
  maxOutputBytes?: number
}

export interface PoolResult {
  output: Uint8Array
  /** The execution digest (0x hex) when the task asked for it. */
  digest?: string
}

export interface WorkerPool {
  run(task: PoolTask): Promise<PoolResult>
  stop(): Promise<void>
}

type Reply = { id: number, ok: true, output: Uint8Array, digest?: string } | { id: number, ok: false, kind: string, message: string }

interface Pending {
  id: number
  task: PoolTask
  resolve(result: PoolResult): void
  reject(err: Error): void
  /** Detaches the timer and the abort listener. */
  cleanup(): void
}

interface Slot {
  worker: Worker
  current?: Pending
  /** The worker has started executing (its boot time does not count against a run's time limit). */
  online: boolean
  /** Called once when the worker comes online. */
  onOnline?(): void
}

function failure (kind: string, message: string): Error {
  switch (kind) {
    case 'memory': return new MemoryLimitError(message)
    case 'output': return new OutputTooLargeError(message)
    case 'abi': return new AbiViolationError(message)
    default: return new WasmTrapError(message)
  }
}

/** A run's output limit: its own when that is a whole number below the pool's (a run can only lower it), else the pool's. */
function runOutputLimit (pool: number, run: number | undefined): number {
  return run !== undefined && Number.isSafeInteger(run) && run >= 0 && run < pool ? run : pool
}

/**
 * A pool of at most `size` workers, started on demand and reused across runs. A worker whose run times out,
 * is aborted or crashes is terminated and dropped; the next run starts a fresh one.
 */
export function createWorkerPool (init: WorkerPoolInit): WorkerPool {
  const slots = new Set<Slot>()
  const queue: Pending[] = []
  let nextId = 1
  let stopped = false

  const startWorker = (): Slot => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: init.workerHeapMb },
      stdout: true,
      stderr: true
    })
    const slot: Slot = { worker, online: false }
    worker.once('online', () => {
      slot.online = true
      const callback = slot.onOnline
      slot.onOnline = undefined
      callback?.()
    })
    worker.on('message', (reply: Reply) => {
      const pending = slot.current
      if (pending == null || pending.id !== reply.id) {
        return
      }
      slot.current = undefined
      worker.unref()
      pending.cleanup()
      if (reply.ok) {
        pending.resolve(reply.digest == null ? { output: reply.output } : { output: reply.output, digest: reply.digest })
      } else {
        pending.reject(failure(reply.kind, reply.message))
      }
      dispatch()
    })
    worker.on('error', (err: Error & { code?: string }) => {
      log.error('worker error %s', err.message)
      const crash = err.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new MemoryLimitError(`Worker ran out of JS heap (limit ${init.workerHeapMb} MiB)`)
        : new WasmTrapError(`Worker failed: ${err.message}`)
      drop(slot, crash)
    })
    worker.on('exit', (code) => {
      drop(slot, new WasmTrapError(`Worker exited with code ${code}`))
    })
    worker.unref()
    slots.add(slot)
    log('started worker %d of %d', slots.size, init.size)
    return slot
  }

  /** Removes a worker from the pool, failing its run (if any) with `err`, and terminates it. */
  const drop = (slot: Slot, err: Error): void => {
    if (!slots.delete(slot)) {
      return
    }
    const pending = slot.current
    slot.current = undefined
    if (pending != null) {
      pending.cleanup()
      pending.reject(err)
    }
    void slot.worker.terminate().catch(() => {})
    dispatch()
  }

  const start = (slot: Slot, pending: Pending): void => {
    slot.current = pending
    slot.worker.ref()
    const { task } = pending
    let timer: ReturnType<typeof setTimeout> | undefined
    const startTimer = (): void => {
      timer = setTimeout(() => {
        drop(slot, new ExecutionTimeoutError(`Run exceeded ${task.timeoutMs} ms`))
      }, task.timeoutMs)
    }
    if (slot.online) {
      startTimer()
    } else {
      slot.onOnline = startTimer
    }
    const onAbort = (): void => {
      drop(slot, new AbortError('Run aborted'))
    }
    task.signal?.addEventListener('abort', onAbort, { once: true })
    pending.cleanup = () => {
      slot.onOnline = undefined
      clearTimeout(timer)
      task.signal?.removeEventListener('abort', onAbort)
    }
    // the input is copied (Buffer#slice would not copy) so the caller's buffer stays intact and the copy,
    // which owns its whole ArrayBuffer, can be transferred
    const input = new Uint8Array(task.input.length)
    input.set(task.input)
    slot.worker.postMessage({
      id: pending.id,
      module: task.module,
      input,
      maxMemoryBytes: init.maxMemoryBytes,
      maxOutputBytes: runOutputLimit(init.maxOutputBytes, task.maxOutputBytes),
      digest: task.digest === true
    }, [input.buffer])
  }

  const dispatch = (): void => {
    if (stopped) {
      return
    }
    while (queue.length > 0) {
      let slot = [...slots].find(s => s.current == null)
      if (slot == null && slots.size < init.size) {
        slot = startWorker()
      }
      if (slot == null) {
        return
      }
      const pending = queue.shift()
      if (pending == null) {
        return
      }
      pending.cleanup()
      start(slot, pending)
    }
  }

  return {
    async run (task) {
      if (stopped) {
        throw new ExecutorStoppedError('Executor is stopped')
      }
      if (task.signal?.aborted === true) {
        throw new AbortError('Run aborted')
      }
      return new Promise<PoolResult>((resolve, reject) => {
        const pending: Pending = { id: nextId++, task, resolve, reject, cleanup: () => {} }
        // while queued, an abort only removes the run from the queue
        const onAbort = (): void => {
          const at = queue.indexOf(pending)
          if (at !== -1) {
            queue.splice(at, 1)
            reject(new AbortError('Run aborted while queued'))
          }
        }
        task.signal?.addEventListener('abort', onAbort, { once: true })
        pending.cleanup = () => { task.signal?.removeEventListener('abort', onAbort) }
        queue.push(pending)
        dispatch()
      })
    },
    async stop () {
      stopped = true
      const err = new ExecutorStoppedError('Executor stopped')
      for (const pending of queue.splice(0)) {
        pending.cleanup()
        pending.reject(err)
      }
      const terminations: Array<Promise<number>> = []
      for (const slot of [...slots]) {
        slots.delete(slot)
        const pending = slot.current
        slot.current = undefined
        if (pending != null) {
          pending.cleanup()
          pending.reject(err)
        }
        terminations.push(slot.worker.terminate())
      }
      await Promise.allSettled(terminations)
    }
  }
}
