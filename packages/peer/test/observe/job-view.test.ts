import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { MACRO_MAP } from '../../src/coord/index.js'
import { JobView } from '../../src/observe/job-view.js'
import type { AnnouncedJob } from '../../src/observe/announced-jobs.js'

const job: AnnouncedJob = {
  jobId: '0x01', specCid: 'bafy', round: 0, key: '0x01', requirements: { minVramGb: 0 } as AnnouncedJob['requirements'],
  macroJobs: 2, microJobsPerMacro: 4, total: 8, deadline: 0, announcer: 'someone'
}

describe('JobView', () => {
  it('stopped while its doc opens (a newer round replaced it), it follows nothing once the doc is there', async () => {
    const privateKey = await generateKeyPair('Ed25519')
    const doc = new Y.Doc()
    let opened: (d: Y.Doc) => void = () => {}
    const docs = { open: async (): Promise<Y.Doc> => await new Promise<Y.Doc>(resolve => { opened = resolve }) }
    const view = new JobView(job)
    let changes = 0
    view.addEventListener('change', () => { changes++ })
    const opening = view.open({ docs, privateKey, peerId: peerIdFromPrivateKey(privateKey).toString() })
    view.stop()
    opened(doc)
    await opening
    doc.getMap<Uint8Array>(MACRO_MAP).set('0', new Uint8Array([1]))
    expect(changes).toBe(0)
    // a view that was not stopped sees the same write
    const live = new JobView(job)
    live.addEventListener('change', () => { changes++ })
    await live.open({ docs: { open: async () => doc }, privateKey, peerId: peerIdFromPrivateKey(privateKey).toString() })
    doc.getMap<Uint8Array>(MACRO_MAP).set('1', new Uint8Array([1]))
    expect(changes).toBe(1)
    live.stop()
  })

  it('a job released on chain shows every MicroJob done, whatever of its results this node holds', async () => {
    const privateKey = await generateKeyPair('Ed25519')
    const view = new JobView(job)
    await view.open({ docs: { open: async () => new Y.Doc() }, privateKey, peerId: peerIdFromPrivateKey(privateKey).toString() })
    expect(view.done).toBe(0)
    expect(view.view().macros.map(m => m.done)).toEqual([0, 0])
    view.markReleased()
    expect(view.done).toBe(8)
    expect(view.view()).toMatchObject({ done: 8, total: 8 })
    expect(view.view().macros.map(m => m.done)).toEqual([4, 4])
    view.stop()
  })
})
