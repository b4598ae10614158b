import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { claimPayouts } from '../../src/settlement/index.js'

const ME = '0x00000000000000000000000000000000000000aa'
const OTHER = '0x00000000000000000000000000000000000000bb'
const JOB = '0x' + '42'.repeat(32)

/**
 * The chain, doc store and content store of a released job, as `claimPayouts` reads them (the logic of which jobs it
 * loads a manifest for; the escrow's claims run end to end in the Mandelbrot and demo tests). No manifest is findable:
 * a load ends in InvalidManifestError.
 */
function released (init: { submitter: string, joined: boolean, credits: bigint }): { components: Parameters<typeof claimPayouts>[0], lookups: string[], withdrawals: number[] } {
  const lookups: string[] = []
  const withdrawals: number[] = []
  const chain = {
    job: async () => ({ status: 'Released', submitter: init.submitter, resultRoot: '0x' + '01'.repeat(32), rejections: 0 }),
    address: async () => ME,
    hasJoined: async () => init.joined,
    submittedManifests: async () => { lookups.push('submittedManifests'); return [] },
    credits: async () => init.credits,
    withdrawCredit: async () => { withdrawals.push(1); return { hash: '0x', blockNumber: 1 } }
  }
  const docs = { open: async () => { lookups.push('round doc'); return new Y.Doc() } }
  const store = { fetch: async () => { lookups.push('fetch'); throw new Error('nothing here') } }
  return { components: { chain, docs, store } as unknown as Parameters<typeof claimPayouts>[0], lookups, withdrawals }
}

describe('claimPayouts', () => {
  it('a node that neither joined the released round nor submitted it loads no manifest (it has no leaf) and withdraws its credits', async () => {
    const r = released({ submitter: OTHER, joined: false, credits: 7n })
    expect(await claimPayouts(r.components, JOB)).toEqual({ claimed: 0n, withdrawn: 7n })
    expect(r.lookups).toEqual([])
    expect(r.withdrawals).toHaveLength(1)
    // no credits: nothing sent
    const none = released({ submitter: OTHER, joined: false, credits: 0n })
    expect(await claimPayouts(none.components, JOB)).toEqual({ claimed: 0n, withdrawn: 0n })
    expect(none.withdrawals).toHaveLength(0)
  })

  it('a node that joined the round, or submitted it, looks for its leaves in the manifest', async () => {
    for (const init of [{ submitter: OTHER, joined: true }, { submitter: ME, joined: false }]) {
      const r = released({ ...init, credits: 7n })
      await expect(claimPayouts(r.components, JOB)).rejects.toMatchObject({ name: 'InvalidManifestError' })
      expect(r.lookups).toEqual(['round doc', 'submittedManifests'])
    }
  })
})
