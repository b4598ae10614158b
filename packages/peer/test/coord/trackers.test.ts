import { afterEach, describe, expect, it, vi } from 'vitest'
import * as Y from 'yjs'
import { FAILURES_MAP, JobFailures, JobProgress, RESULTS_MAP, recordVerifier } from '../../src/coord/index.js'

afterEach(() => { vi.restoreAllMocks() })

describe('result and failure trackers', () => {
  it('stop twice (job end, then peer stop) detaches once: Yjs is never asked to remove a handler it does not have', () => {
    const warn = vi.spyOn(console, 'warn')
    const error = vi.spyOn(console, 'error')
    const doc = new Y.Doc()
    const jobId = '0x' + '1'.repeat(64)
    const progress = new JobProgress({ verifier: recordVerifier() }, jobId, 4)
    progress.watch(doc.getMap<Uint8Array>(RESULTS_MAP))
    const failures = new JobFailures({ verifier: recordVerifier() }, doc.getMap<Uint8Array>(FAILURES_MAP), jobId)
    for (const tracker of [progress, failures]) {
      tracker.stop()
      tracker.stop()
    }
    expect(warn).not.toHaveBeenCalled()
    expect(error).not.toHaveBeenCalled()
    // detached: a later record is not even looked at
    doc.getMap<Uint8Array>(RESULTS_MAP).set('x', new Uint8Array([1]))
    expect(progress.done.size).toBe(0)
  })
})
