import { logger } from '@libp2p/logger'
import { DEFAULT_ALPHA } from './constants.js'
import { isEligible } from './eligibility.js'
import { DuplicateTaskError, InvalidArgumentError } from './errors.js'
import { IndexedHeap } from './heap.js'
import type { HardwareRequirement, NodeHardware } from './eligibility.js'

const log = logger('jobmesh:protocol:task-queue')

/** A task waiting for a node: `value` is the task value (wei per second, see `taskValue`). */
export interface QueuedTask extends HardwareRequirement {
  id: string
  value: bigint
}

/** Options of a task queue: its capacity is `floor(alpha * nodeCount)`. */
export interface TaskQueueInit {
  nodeCount: number
  alpha?: number
}

/** The verification/task queue (DESIGN section 8, seed "Task Queue"). */
export interface TaskQueue<T extends QueuedTask = QueuedTask> {
  /** Tasks queued. */
  readonly size: number
  /** `floor(alpha * nodeCount)`. */
  readonly maxSize: number
  /** Queues a task; when that overfills the queue, removes and returns the lowest-value task (maybe this one). */
  enqueue(task: T): T | undefined
  /** Removes and returns the best task the node may take, or undefined. */
  dequeueFor(node: NodeHardware): T | undefined
  /** The task `dequeueFor` would return, left in the queue. */
  peekFor(node: NodeHardware): T | undefined
  /** Removes a task by id (e.g. it was cancelled); returns it if it was queued. */
  remove(id: string): T | undefined
  /** Whether a task with this id is queued. */
  has(id: string): boolean
  /** Updates N; returns the tasks evicted (lowest value first) if the queue is now over capacity. */
  setNodeCount(nodeCount: number): T[]
}

interface Entry<T> {
  task: T
  seq: number
  group: Group<T>
}

interface Group<T> {
  key: string
  minVramGb: number
  gpuModel?: string
  heap: IndexedHeap<Entry<T>>
}

/** Better task first: higher value, then earlier enqueued. */
function better<T extends QueuedTask> (a: Entry<T>, b: Entry<T>): boolean {
  if (a.task.value !== b.task.value) return a.task.value > b.task.value
  return a.seq < b.seq
}

/**
 * Creates a task queue. Tasks are grouped by `(minVramGb, gpuModel)` ("Any" when no model is required); within a
 * group the highest value comes first (FIFO on equal value). `dequeueFor(node)` takes the best task among the
 * groups `isEligible` admits. At capacity the worst task overall (lowest value; on equal value the most recently
 * queued) is evicted. Every operation is O(log n) plus a scan over the (few) groups in `dequeueFor`.
 */
export function createTaskQueue<T extends QueuedTask = QueuedTask> (init: TaskQueueInit): TaskQueue<T> {
  const alpha = init.alpha ?? DEFAULT_ALPHA
  if (!(alpha >= 0) || !Number.isFinite(alpha)) throw new InvalidArgumentError('alpha must be a non-negative number')
  const capacity = (n: number): number => {
    if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('nodeCount must be a non-negative integer')
    return Math.floor(alpha * n)
  }
  let maxSize = capacity(init.nodeCount)
  let seq = 0
  const byId = new Map<string, Entry<T>>()
  const groups = new Map<string, Group<T>>()
  const worst = new IndexedHeap<Entry<T>>((a, b) => better(b, a))

  const detach = (entry: Entry<T>): T => {
    byId.delete(entry.task.id)
    worst.remove(entry)
    entry.group.heap.remove(entry)
    if (entry.group.heap.size === 0) groups.delete(entry.group.key)
    return entry.task
  }

  const evictOverflow = (): T[] => {
    const evicted: T[] = []
    while (byId.size > maxSize) {
      const entry = worst.peek() as Entry<T>
      log('queue full (%d > %d): evicting task %s', byId.size, maxSize, entry.task.id)
      evicted.push(detach(entry))
    }
    return evicted
  }

  const bestFor = (node: NodeHardware): Entry<T> | undefined => {
    let best: Entry<T> | undefined
    for (const group of groups.values()) {
      if (!isEligible(group, node)) continue
      const top = group.heap.peek()
      if (top !== undefined && (best === undefined || better(top, best))) best = top
    }
    return best
  }

  return {
    get size () { return byId.size },
    get maxSize () { return maxSize },
    enqueue (task: T): T | undefined {
      if (byId.has(task.id)) throw new DuplicateTaskError(`task ${task.id} is already queued`)
      const key = `${task.minVramGb}\u0000${task.gpuModel ?? ''}`
      let group = groups.get(key)
      if (group === undefined) {
        group = { key, minVramGb: task.minVramGb, gpuModel: task.gpuModel, heap: new IndexedHeap(better) }
        groups.set(key, group)
      }
      const entry: Entry<T> = { task, seq: seq++, group }
      byId.set(task.id, entry)
      group.heap.push(entry)
      worst.push(entry)
      return evictOverflow()[0]
    },
    dequeueFor (node: NodeHardware): T | undefined {
      const entry = bestFor(node)
      return entry === undefined ? undefined : detach(entry)
    },
    peekFor (node: NodeHardware): T | undefined {
      return bestFor(node)?.task
    },
    remove (id: string): T | undefined {
      const entry = byId.get(id)
      return entry === undefined ? undefined : detach(entry)
    },
    has (id: string): boolean {
      return byId.has(id)
    },
    setNodeCount (nodeCount: number): T[] {
      maxSize = capacity(nodeCount)
      return evictOverflow()
    }
  }
}
