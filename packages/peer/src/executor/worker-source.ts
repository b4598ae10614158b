/**
 * The code of an executor worker, started with `new Worker(WORKER_SOURCE, { eval: true })`. It is a plain
 * string so that the same code runs from the TypeScript sources (vitest) and from the built `dist/` without a
 * separate worker file to locate or copy.
 *
 * Protocol: the parent posts `{ id, module, input, maxMemoryBytes, maxOutputBytes, digest }` (module: a compiled
 * `WebAssembly.Module`, input: a Uint8Array whose buffer is transferred). The worker answers
 * `{ id, ok: true, output, digest? }` (output buffer transferred) or `{ id, ok: false, kind, message }` with kind one
 * of `trap`, `abort`, `memory`, `output`, `abi`. Each run gets a fresh instance: no state survives between runs, so
 * the memory after a run is a function of the code and the input alone. With `digest` set the worker also answers
 * the execution digest: sha256 of {@link EXECUTION_DIGEST_DOMAIN} and the whole linear memory after the run.
 */
/** The domain prefix of an execution digest (a new version if the digest ever changes). */
export const EXECUTION_DIGEST_DOMAIN = 'jobmesh/execution-digest/v1'

export const WORKER_SOURCE = String.raw`
'use strict'
const { parentPort } = require('node:worker_threads')
const { createHash } = require('node:crypto')

class JobFailure extends Error {
  constructor (kind, message) {
    super(message)
    this.kind = kind
  }
}

const MAX_ABORT_TEXT = 1024

// An AssemblyScript string: UTF-16LE code units, their byte length in the u32 just before the pointer.
function readAsString (memory, ptr) {
  ptr = ptr >>> 0
  const buffer = memory.buffer
  if (ptr === 0 || ptr < 4 || ptr > buffer.byteLength) return undefined
  const view = new DataView(buffer)
  const bytes = view.getUint32(ptr - 4, true)
  if (bytes % 2 !== 0 || ptr + bytes > buffer.byteLength) return undefined
  const units = Math.min(bytes / 2, MAX_ABORT_TEXT)
  let text = ''
  for (let i = 0; i < units; i++) text += String.fromCharCode(view.getUint16(ptr + i * 2, true))
  return text
}

function pointer (value, what) {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new JobFailure('abi', what + ' must return an i32 pointer')
  }
  return value >>> 0
}

function run (msg) {
  const { module, input, maxMemoryBytes, maxOutputBytes, digest } = msg
  let memory
  const env = {
    abort (message, file, line, column) {
      let text = 'abort'
      if (memory != null) {
        const m = readAsString(memory, message)
        const f = readAsString(memory, file)
        if (m != null) text += ': ' + m
        if (f != null) text += ' at ' + f + ':' + (line >>> 0) + ':' + (column >>> 0)
      }
      throw new JobFailure('abort', text)
    }
  }
  const checkMemory = () => {
    if (memory != null && memory.buffer.byteLength > maxMemoryBytes) {
      throw new JobFailure('memory', 'memory grew to ' + memory.buffer.byteLength + ' bytes, limit ' + maxMemoryBytes)
    }
  }
  try {
    const instance = new WebAssembly.Instance(module, { env })
    memory = instance.exports.memory
    checkMemory()
    const inPtr = pointer(instance.exports.alloc(input.length), 'alloc')
    checkMemory()
    if (inPtr + input.length > memory.buffer.byteLength) {
      throw new JobFailure('abi', 'alloc returned ' + inPtr + ', outside memory for ' + input.length + ' bytes')
    }
    new Uint8Array(memory.buffer, inPtr, input.length).set(input)
    const outPtr = pointer(instance.exports.process(inPtr, input.length), 'process')
    checkMemory()
    const size = memory.buffer.byteLength
    if (outPtr + 4 > size) {
      throw new JobFailure('abi', 'process returned ' + outPtr + ', outside memory')
    }
    const length = new DataView(memory.buffer).getUint32(outPtr, true)
    if (length > maxOutputBytes) {
      throw new JobFailure('output', 'output of ' + length + ' bytes, limit ' + maxOutputBytes)
    }
    if (outPtr + 4 + length > size) {
      throw new JobFailure('abi', 'output of ' + length + ' bytes at ' + outPtr + ' runs past the end of memory')
    }
    const output = new Uint8Array(memory.buffer.slice(outPtr + 4, outPtr + 4 + length))
    if (!digest) return { output }
    const hash = createHash('sha256').update('${EXECUTION_DIGEST_DOMAIN}').update(new Uint8Array(memory.buffer))
    return { output, digest: '0x' + hash.digest('hex') }
  } catch (err) {
    if (memory != null && memory.buffer.byteLength > maxMemoryBytes) {
      throw new JobFailure('memory', 'memory grew to ' + memory.buffer.byteLength + ' bytes, limit ' + maxMemoryBytes)
    }
    if (err instanceof JobFailure) throw err
    const message = err instanceof Error ? err.message : String(err)
    throw new JobFailure('trap', message)
  }
}

parentPort.on('message', (msg) => {
  try {
    const { output, digest } = run(msg)
    parentPort.postMessage({ id: msg.id, ok: true, output, digest }, [output.buffer])
  } catch (err) {
    parentPort.postMessage({ id: msg.id, ok: false, kind: err.kind ?? 'trap', message: String(err.message) })
  }
})
`
