import { createDocStore, docsOfJob, macroDocName, roundDocName } from '@jobmesh/peer/crdt'
import { createNode } from '@jobmesh/peer/node'
import { afterEach, describe, expect, it } from 'vitest'
import { jobDocHolds } from '../src/job-docs.js'
import type { DocStore } from '@jobmesh/peer/crdt'
import type { JobmeshNode } from '@jobmesh/peer/node'

const JOB = '0x' + 'ab'.repeat(32)
const OTHER = '0x' + 'cd'.repeat(32)

let node: JobmeshNode | undefined
let docs: DocStore | undefined

afterEach(async () => {
  await docs?.stop()
  await node?.stop()
  docs = undefined
  node = undefined
})

async function store (): Promise<DocStore> {
  node = await createNode({})
  docs = createDocStore(node)
  return docs
}

/** Opens a job's round doc and one MacroJob doc offline, as the client's operations do (a write in each). */
async function openJob (d: DocStore, jobId: string): Promise<void> {
  const round = roundDocName(jobId, 0)
  for (const name of [round, macroDocName(round, 0)]) {
    const doc = await d.open(name, { offline: true })
    doc.getMap('m').set('k', name)
  }
}

describe('jobDocHolds', () => {
  it('closes a job\'s docs when its last hold ends, and leaves the other jobs\' docs open', async () => {
    const d = await store()
    const holds = jobDocHolds(d)
    const first = await holds.hold(JOB)
    const second = await holds.hold(JOB.toUpperCase().replace('0X', '0x'))
    await openJob(d, JOB)
    await openJob(d, OTHER)

    await first()
    expect(docsOfJob(d.names(), JOB)).toHaveLength(2)
    await first()
    expect(docsOfJob(d.names(), JOB)).toHaveLength(2)

    await second()
    expect(docsOfJob(d.names(), JOB)).toEqual([])
    expect(docsOfJob(d.names(), OTHER)).toHaveLength(2)
  })

  it('keeps what was written: a closed doc opens again from the datastore with its state', async () => {
    const d = await store()
    const holds = jobDocHolds(d)
    const release = await holds.hold(JOB)
    await openJob(d, JOB)
    await release()
    const again = await d.open(roundDocName(JOB, 0), { offline: true })
    expect(again.getMap('m').get('k')).toBe(roundDocName(JOB, 0))
  })

  it('a hold taken while the job\'s docs are closing gets them only after the close', async () => {
    const d = await store()
    const holds = jobDocHolds(d)
    const release = await holds.hold(JOB)
    await openJob(d, JOB)
    const before = d.get(roundDocName(JOB, 0))
    const closing = release()
    // opened as soon as the hold is granted, while the close may still be flushing
    const { next, reopened } = await holds.hold(JOB).then(async next => ({ next, reopened: await d.open(roundDocName(JOB, 0), { offline: true }) }))
    await closing
    expect(reopened).not.toBe(before)
    expect(d.get(roundDocName(JOB, 0))).toBe(reopened)
    expect(reopened.getMap('m').get('k')).toBe(roundDocName(JOB, 0))
    await next()
    expect(docsOfJob(d.names(), JOB)).toEqual([])
  })
})
