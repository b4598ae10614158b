import { describe, expect, it } from 'vitest'
import { IndexedHeap, createPrng, createTaskQueue } from '../../src/protocol/index.js'
import type { QueuedTask } from '../../src/protocol/index.js'

const task = (id: string, value: bigint, minVramGb = 0, gpuModel?: string): QueuedTask =>
  gpuModel === undefined ? { id, value, minVramGb } : { id, value, minVramGb, gpuModel }

const RTX = { gpuModel: 'RTX4090', vramGb: 24 }

describe('IndexedHeap', () => {
  it('pops in order after arbitrary removals', () => {
    const prng = createPrng(3n)
    const heap = new IndexedHeap<{ v: number }>((a, b) => a.v > b.v)
    const items = Array.from({ length: 200 }, () => ({ v: Number(prng.next() % 1000n) }))
    items.forEach(i => heap.push(i))
    const removed = new Set(items.filter((_, i) => i % 3 === 0))
    for (const r of removed) expect(heap.remove(r)).toBe(true)
    expect(heap.remove(items[0])).toBe(false)
    const out: number[] = []
    for (let x = heap.pop(); x !== undefined; x = heap.pop()) out.push(x.v)
    const expected = items.filter(i => !removed.has(i)).map(i => i.v).sort((a, b) => b - a)
    expect(out).toEqual(expected)
  })
})

describe('task queue', () => {
  it('gives a node the highest-value task among its model group and "Any", FIFO on ties', () => {
    const q = createTaskQueue({ nodeCount: 10 })
    q.enqueue(task('any-low', 1n))
    q.enqueue(task('rtx-mid', 5n, 8, 'RTX4090'))
    q.enqueue(task('a100-high', 100n, 8, 'A100'))
    q.enqueue(task('any-mid', 5n, 16))
    expect(q.dequeueFor(RTX)?.id).toBe('rtx-mid') // equal value: queued first wins
    expect(q.dequeueFor(RTX)?.id).toBe('any-mid')
    expect(q.dequeueFor(RTX)?.id).toBe('any-low')
    expect(q.dequeueFor(RTX)).toBeUndefined()
    expect(q.size).toBe(1)
    expect(q.dequeueFor({ gpuModel: 'A100', vramGb: 80 })?.id).toBe('a100-high')
  })

  it('skips groups needing more VRAM than the node has, in "Any" and in its own model', () => {
    const q = createTaskQueue({ nodeCount: 10 })
    q.enqueue(task('any-48', 50n, 48))
    q.enqueue(task('rtx-32', 40n, 32, 'RTX4090'))
    q.enqueue(task('any-24', 1n, 24))
    expect(q.peekFor(RTX)?.id).toBe('any-24')
    expect(q.dequeueFor(RTX)?.id).toBe('any-24')
    expect(q.dequeueFor(RTX)).toBeUndefined()
    expect(q.dequeueFor({ gpuModel: 'RTX4090', vramGb: 48 })?.id).toBe('any-48')
  })

  it('holds at most alpha * N tasks and evicts the lowest value overall', () => {
    const q = createTaskQueue({ nodeCount: 2, alpha: 1.5 })
    expect(q.maxSize).toBe(3)
    expect(q.enqueue(task('a', 5n, 0, 'X'))).toBeUndefined()
    expect(q.enqueue(task('b', 2n))).toBeUndefined()
    expect(q.enqueue(task('c', 9n, 4))).toBeUndefined()
    expect(q.enqueue(task('d', 7n))?.id).toBe('b')
    expect(q.has('b')).toBe(false)
    expect(q.enqueue(task('e', 1n))?.id).toBe('e') // the newcomer itself is the lowest
    expect(q.size).toBe(3)
  })

  it('on equal lowest value evicts the most recently queued', () => {
    const q = createTaskQueue({ nodeCount: 1 }) // alpha 2 -> 2
    q.enqueue(task('old', 1n))
    q.enqueue(task('mid', 1n))
    expect(q.enqueue(task('new', 1n))?.id).toBe('new')
  })

  it('shrinking N evicts the lowest-value tasks', () => {
    const q = createTaskQueue({ nodeCount: 3 })
    for (const [id, v] of [['a', 4n], ['b', 1n], ['c', 6n], ['d', 3n], ['e', 5n]] as const) q.enqueue(task(id, v))
    expect(q.setNodeCount(1).map(t => t.id)).toEqual(['b', 'd', 'a'])
    expect(q.dequeueFor(RTX)?.id).toBe('c')
    expect(q.setNodeCount(0).map(t => t.id)).toEqual(['e'])
    expect(q.enqueue(task('f', 100n))?.id).toBe('f')
  })

  it('removes by id and keeps the eviction order consistent', () => {
    const q = createTaskQueue({ nodeCount: 1 })
    q.enqueue(task('a', 1n))
    q.enqueue(task('b', 2n))
    expect(q.remove('a')?.id).toBe('a')
    expect(q.remove('a')).toBeUndefined()
    expect(q.enqueue(task('c', 3n))).toBeUndefined()
    expect(q.enqueue(task('d', 4n))?.id).toBe('b')
  })

  it('rejects a duplicate id and a bad node count with typed errors', () => {
    const q = createTaskQueue({ nodeCount: 1 })
    q.enqueue(task('a', 1n))
    expect(() => q.enqueue(task('a', 2n))).toThrow(expect.objectContaining({ name: 'DuplicateTaskError' }))
    expect(() => createTaskQueue({ nodeCount: -1 })).toThrow(expect.objectContaining({ name: 'InvalidArgumentError' }))
  })

  it('matches a brute-force model over a random workload', () => {
    const prng = createPrng(77n)
    const rnd = (n: number): number => Number(prng.next() % BigInt(n))
    const models = ['A', 'B', undefined]
    const q = createTaskQueue({ nodeCount: 20 })
    const model: Array<QueuedTask & { seq: number }> = []
    let seq = 0
    for (let step = 0; step < 2000; step++) {
      if (rnd(3) > 0) {
        const t = task(`t${step}`, BigInt(rnd(50)), rnd(4) * 8, models[rnd(3)])
        const evicted = q.enqueue(t)
        model.push({ ...t, seq: seq++ })
        if (model.length > 40) {
          const worst = model.reduce((w, x) => (x.value < w.value || (x.value === w.value && x.seq > w.seq) ? x : w))
          model.splice(model.indexOf(worst), 1)
          expect(evicted?.id).toBe(worst.id)
        } else {
          expect(evicted).toBeUndefined()
        }
      } else {
        const node = { gpuModel: ['A', 'B'][rnd(2)], vramGb: rnd(4) * 8 }
        const eligible = model.filter(x => x.minVramGb <= node.vramGb && (x.gpuModel === undefined || x.gpuModel === node.gpuModel))
        const best = eligible.reduce<(typeof model)[number] | undefined>((b, x) =>
          (b === undefined || x.value > b.value || (x.value === b.value && x.seq < b.seq) ? x : b), undefined)
        expect(q.dequeueFor(node)?.id).toBe(best?.id)
        if (best !== undefined) model.splice(model.indexOf(best), 1)
      }
      expect(q.size).toBe(model.length)
    }
  })
})
