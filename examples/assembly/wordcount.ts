// jobmesh example job: count the words of a text slice.
//
// Input: text bytes (the MicroJob's block range of the job's text; the data generator pads every block with
// spaces so no word crosses a block boundary). A word is a maximal run of ASCII letters and digits, ASCII
// letters folded to lower case; every other byte separates words. Runs longer than 255 bytes are skipped.
// Output (after the ABI's u32 length), the word-count table:
//   u32 magic 0x31544357 ("WCT1"), u32 entries, then per entry, sorted by the word's bytes (unsigned,
//   a prefix before its extensions): u8 length, the word's bytes, u32 count. All integers little-endian.

const MAX_WORD: i32 = 255
const MAGIC: u32 = 0x31544357
const SLOT: usize = 12 // u32 word pointer (0 = empty), u32 length, u32 count

let table: usize = 0
let capacity: u32 = 0
let used: u32 = 0

export function alloc(len: i32): usize {
  return heap.alloc(<usize>max(len, 1))
}

// @ts-ignore: decorator
@inline function isWordByte(c: u32): bool {
  return (c - 0x30 < 10) || ((c | 0x20) - 0x61 < 26)
}

function hash(ptr: usize, len: i32): u32 {
  let h: u32 = 0x811c9dc5
  for (let i = 0; i < len; i++) {
    h = (h ^ <u32>load<u8>(ptr + <usize>i)) * 0x01000193
  }
  return h
}

function equal(a: usize, b: usize, len: i32): bool {
  for (let i = 0; i < len; i++) {
    if (load<u8>(a + <usize>i) != load<u8>(b + <usize>i)) return false
  }
  return true
}

function newTable(cap: u32): void {
  table = heap.alloc(<usize>cap * SLOT)
  memory.fill(table, 0, <usize>cap * SLOT)
  capacity = cap
  used = 0
}

function insert(ptr: usize, len: i32, count: u32): void {
  const mask = capacity - 1
  let i = hash(ptr, len) & mask
  while (true) {
    const slot = table + <usize>i * SLOT
    const word = load<u32>(slot)
    if (word == 0) {
      store<u32>(slot, <u32>ptr)
      store<u32>(slot, <u32>len, 4)
      store<u32>(slot, count, 8)
      used++
      return
    }
    if (load<u32>(slot, 4) == <u32>len && equal(<usize>word, ptr, len)) {
      store<u32>(slot, load<u32>(slot, 8) + count, 8)
      return
    }
    i = (i + 1) & mask
  }
}

function grow(): void {
  const old = table
  const oldCap = capacity
  newTable(oldCap << 1)
  for (let i: u32 = 0; i < oldCap; i++) {
    const slot = old + <usize>i * SLOT
    const word = load<u32>(slot)
    if (word != 0) insert(<usize>word, <i32>load<u32>(slot, 4), load<u32>(slot, 8))
  }
}

function add(ptr: usize, len: i32): void {
  if (used * 2 >= capacity) grow()
  insert(ptr, len, 1)
}

// compares the words of two slots: < 0, 0, > 0
function compare(a: usize, b: usize): i32 {
  const la = <i32>load<u32>(a, 4)
  const lb = <i32>load<u32>(b, 4)
  const pa = <usize>load<u32>(a)
  const pb = <usize>load<u32>(b)
  const n = min(la, lb)
  for (let i = 0; i < n; i++) {
    const ca = <i32>load<u8>(pa + <usize>i)
    const cb = <i32>load<u8>(pb + <usize>i)
    if (ca != cb) return ca - cb
  }
  return la - lb
}

// heapsort of an array of n slot pointers (u32) at `arr`
function siftDown(arr: usize, start: i32, n: i32): void {
  let root = start
  while (true) {
    let child = root * 2 + 1
    if (child >= n) return
    const c = arr + (<usize>child << 2)
    if (child + 1 < n && compare(<usize>load<u32>(c), <usize>load<u32>(c, 4)) < 0) child++
    const r = arr + (<usize>root << 2)
    const ch = arr + (<usize>child << 2)
    const rv = load<u32>(r)
    const cv = load<u32>(ch)
    if (compare(<usize>rv, <usize>cv) >= 0) return
    store<u32>(r, cv)
    store<u32>(ch, rv)
    root = child
  }
}

function sort(arr: usize, n: i32): void {
  for (let start = n / 2 - 1; start >= 0; start--) siftDown(arr, start, n)
  for (let end = n - 1; end > 0; end--) {
    const last = arr + (<usize>end << 2)
    const top = load<u32>(arr)
    store<u32>(arr, load<u32>(last))
    store<u32>(last, top)
    siftDown(arr, 0, end)
  }
}

function count(ptr: usize, len: i32): usize {
  newTable(1024)
  // fold to lower case in place, then scan the words
  let start = -1
  for (let i = 0; i <= len; i++) {
    let word = false
    if (i < len) {
      const at = ptr + <usize>i
      const c = <u32>load<u8>(at)
      word = isWordByte(c)
      if (c - 0x41 < 26) store<u8>(at, <u8>(c | 0x20))
    }
    if (word) {
      if (start < 0) start = i
    } else if (start >= 0) {
      const n = i - start
      if (n <= MAX_WORD) add(ptr + <usize>start, n)
      start = -1
    }
  }
  // gather the used slots and sort them
  const n = <i32>used
  const arr = heap.alloc(max<usize>(<usize>n << 2, 4))
  let k = 0
  let size: usize = 8
  for (let i: u32 = 0; i < capacity; i++) {
    const slot = table + <usize>i * SLOT
    if (load<u32>(slot) != 0) {
      store<u32>(arr + (<usize>k << 2), <u32>slot)
      size += 5 + <usize>load<u32>(slot, 4)
      k++
    }
  }
  sort(arr, n)
  const out = heap.alloc(4 + size)
  store<u32>(out, <u32>size)
  store<u32>(out, MAGIC, 4)
  store<u32>(out, <u32>n, 8)
  let at = out + 12
  for (let j = 0; j < n; j++) {
    const slot = <usize>load<u32>(arr + (<usize>j << 2))
    const wlen = load<u32>(slot, 4)
    store<u8>(at, <u8>wlen)
    memory.copy(at + 1, <usize>load<u32>(slot), <usize>wlen)
    at += 1 + <usize>wlen
    store<u32>(at, load<u32>(slot, 8))
    at += 4
  }
  return out
}

export { count as process }
