/**
 * A binary heap that knows where each item is, so any item can be removed in O(log n). `before(a, b)` is true when
 * `a` belongs nearer the top than `b`. Items must be distinct objects.
 */
export class IndexedHeap<T> {
  private readonly items: T[] = []
  private readonly positions = new Map<T, number>()
  private readonly before: (a: T, b: T) => boolean

  constructor (before: (a: T, b: T) => boolean) {
    this.before = before
  }

  get size (): number {
    return this.items.length
  }

  peek (): T | undefined {
    return this.items[0]
  }

  has (item: T): boolean {
    return this.positions.has(item)
  }

  push (item: T): void {
    this.items.push(item)
    this.positions.set(item, this.items.length - 1)
    this.up(this.items.length - 1)
  }

  pop (): T | undefined {
    const top = this.items[0]
    if (top !== undefined) this.remove(top)
    return top
  }

  remove (item: T): boolean {
    const i = this.positions.get(item)
    if (i === undefined) return false
    const last = this.items.pop() as T
    this.positions.delete(item)
    if (i < this.items.length) {
      this.items[i] = last
      this.positions.set(last, i)
      this.down(this.up(i))
    }
    return true
  }

  private swap (i: number, j: number): void {
    const a = this.items[i]
    const b = this.items[j]
    this.items[i] = b
    this.items[j] = a
    this.positions.set(b, i)
    this.positions.set(a, j)
  }

  private up (index: number): number {
    let i = index
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.before(this.items[i], this.items[parent])) break
      this.swap(i, parent)
      i = parent
    }
    return i
  }

  private down (index: number): void {
    let i = index
    const n = this.items.length
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let best = i
      if (l < n && this.before(this.items[l], this.items[best])) best = l
      if (r < n && this.before(this.items[r], this.items[best])) best = r
      if (best === i) return
      this.swap(i, best)
      i = best
    }
  }
}
