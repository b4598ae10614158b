import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { writeResults } from '../src/cli/follow.js'
import type { JobClient, MicroJobOutput } from '../src/index.js'

let dir = ''
afterEach(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true })
  dir = ''
})

/** What `results` hands the writer: verified outputs (the download is the SDK's, tested against real peers elsewhere). */
function clientWith (outputs: Array<Pick<MicroJobOutput, 'macroIndex' | 'index' | 'bytes'>>): JobClient {
  return { results: async () => outputs } as unknown as JobClient
}

describe('writing verified outputs', () => {
  it('a folder in the way of an output is a named error that says which output and why, after the outputs before it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-write-results-'))
    await mkdir(join(dir, '0.1.bin'))
    const io = { out: () => {}, err: () => {} }
    const outputs = [{ macroIndex: 0, index: 0, bytes: new Uint8Array([1]) }, { macroIndex: 0, index: 1, bytes: new Uint8Array([2]) }]
    const err = await writeResults(clientWith(outputs), '0x' + '1'.repeat(64), dir, io, { quiet: true }).catch((e: unknown) => e as Error)
    expect([err.name, err.message]).toEqual(['OutputWriteError', `cannot write the output of MicroJob 0.1 to ${join(dir, '0.1.bin')}: a folder of that name is in the way`])
    expect(await readFile(join(dir, '0.0.bin'))).toEqual(Buffer.from([1]))
  })
})
