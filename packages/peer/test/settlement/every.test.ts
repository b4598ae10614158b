import { waitFor } from '@jobmesh/testkit'
import { describe, expect, it } from 'vitest'
import { every } from '../../src/settlement/every.js'

describe('every (the job gates\' refresh loop)', () => {
  it('reads again after each pause, through failures, and ends when its signal aborts', async () => {
    const controller = new AbortController()
    let runs = 0
    const errors: string[] = []
    const loop = every(5, controller.signal, async () => {
      runs++
      if (runs === 2) throw new Error('chain away')
    }, err => { errors.push(err.message) })
    await waitFor(() => runs >= 4, { what: 'four reads', timeoutMs: 10_000 })
    expect(errors).toEqual(['chain away'])
    controller.abort()
    // the loop's promise ends: nothing is left running
    await loop
    const after = runs
    await expect(every(5, controller.signal, async () => { runs++ }, () => {})).resolves.toBeUndefined()
    expect(runs).toBe(after)
  })
})
