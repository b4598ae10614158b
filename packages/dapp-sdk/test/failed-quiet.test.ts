import { createHash } from 'node:crypto'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { FAILURES_MAP, JobFailures, recordSigner, recordVerifier } from '@jobmesh/peer/coord'
import { jobDocName } from '@jobmesh/peer/crdt'
import { waitFor } from '@jobmesh/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { SLICING, cleanup, processorDocs, setup, smallJob } from './helpers.js'
import type { ProgressUpdate } from '../src/index.js'

afterEach(cleanup)

const digest = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest())

describe('a failed state that time limits made, while results land', () => {
  it('progress goes on through new results and ends failed only after failedQuietMs without one', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })
    const docs = await processorDocs(env, job.jobId)
    const verifier = recordVerifier()
    const result = (g: number): void => {
      const d = job.microJobs[g]
      const bytes = new TextEncoder().encode(`output ${g}`)
      docs.results.write(d.macroIndex, d.index, { term: 1, outputHash: digest(bytes), size: bytes.length })
    }
    result(0)
    // two loaded peers ran out of time on MicroJob 1.1 three times between them: the job doc's failed state
    const jobDoc = await env.peerDocs.open(jobDocName(job.jobId), { signal: AbortSignal.timeout(10_000) })
    for (const [attempts, slow] of [[2, await generateKeyPair('Ed25519')], [1, await generateKeyPair('Ed25519')]] as const) {
      const failures = new JobFailures({ signer: recordSigner(slow, peerIdFromPrivateKey(slow).toString()), verifier }, jobDoc.getMap(FAILURES_MAP), job.jobId)
      for (let term = 1; term <= attempts; term++) failures.record(1, 1, term, 'ExecutionTimeoutError')
      failures.stop()
    }

    const updates: ProgressUpdate[] = []
    const ended = (async () => {
      for await (const u of env.client.progress(job.jobId, { timeoutMs: 60_000, failedQuietMs: 3_000 })) updates.push(u)
    })().then(() => undefined, (err: Error) => err)
    // the failed state is seen with one result, and the progress does not end on it...
    await waitFor(() => updates.some(u => u.done === 1), { what: 'the first result in the progress', timeoutMs: 15_000 })
    // ...so a faster peer's results still come through
    result(1)
    await waitFor(() => updates.some(u => u.done === 2), { what: 'a result after the failed state', timeoutMs: 15_000 })
    // and then nothing more: failed, after the quiet time (not the progress's 60 s timeout)
    const err = await ended
    expect(err?.name).toBe('JobFailedError')
    expect(updates.at(-1)).toEqual({ done: 2, total: 4, failed: { attempts: 3, peers: 2, reasons: ['ExecutionTimeoutError'], details: ['ExecutionTimeoutError'] } })
  }, 90_000)
})
