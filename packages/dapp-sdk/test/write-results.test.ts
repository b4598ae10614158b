import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { JOB_MARK, writeResults } from '../src/cli/follow.js'
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

  it('a folder of another job\'s outputs is refused before the download; the same job\'s folder is written again', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-write-results-'))
    const io = { out: () => {}, err: () => {} }
    const first = '0x' + 'a'.repeat(64)
    const second = '0x' + 'b'.repeat(64)
    let downloads = 0
    const client = { results: async () => { downloads++; return [{ macroIndex: 0, index: 0, bytes: new Uint8Array([7]) }] } } as unknown as JobClient
    await writeResults(client, first, dir, io, { quiet: true })
    expect(await readFile(join(dir, JOB_MARK), 'utf8')).toBe(`${first}\n`)
    // again for the same job: fine (a second try, or the outputs fetched anew)
    await writeResults(client, first, dir, io, { quiet: true })
    const other = await writeResults(client, second, dir, io, { quiet: true }).catch((e: unknown) => e as Error)
    expect([other.name, other.message]).toEqual(['InvalidConfigError', `--out ${dir} holds the outputs of job ${first}: name another folder for job ${second}`])
    expect(downloads).toBe(2)
    // output files without the mark (another run, another tool): refused too, nothing replaced
    await rm(join(dir, JOB_MARK))
    const unmarked = await writeResults(client, second, dir, io, { quiet: true }).catch((e: unknown) => e as Error)
    expect([unmarked.name, unmarked.message]).toEqual(['InvalidConfigError', `--out ${dir} holds 1 output file (0.0.bin...) of another job or run: name another folder, or empty this one`])
    expect(await readFile(join(dir, '0.0.bin'))).toEqual(Buffer.from([7]))
  })
})
