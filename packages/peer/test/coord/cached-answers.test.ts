import { describe, expect, it } from 'vitest'
import { cachedAnswers } from '../../src/coord/cached-answers.js'
import { MAX_CACHED_NO_ANSWERS } from '../../src/coord/constants.js'

describe('cachedAnswers', () => {
  it('a flood of unknown keys past the bound drops the oldest no only, not every recent one', async () => {
    const reads: string[] = []
    const answers = cachedAnswers(async (key) => { reads.push(key); return key.startsWith('node') }, 60_000)
    expect(await answers.ask('node-a')).toBe(true)
    for (let i = 0; i <= MAX_CACHED_NO_ANSWERS; i++) expect(await answers.ask(`unknown-${i}`)).toBe(false)
    reads.length = 0
    // the newest noes are still cached: asked again, nothing is read
    for (let i = 1; i <= MAX_CACHED_NO_ANSWERS; i++) expect(await answers.ask(`unknown-${i}`)).toBe(false)
    expect(reads).toEqual([])
    // the oldest went: it is read again; the yes was never touched
    expect(await answers.ask('unknown-0')).toBe(false)
    expect(await answers.ask('node-a')).toBe(true)
    expect(reads).toEqual(['unknown-0'])
  })

  it('an answer cached again becomes the newest: a key asked often outlives the flood', async () => {
    const reads: string[] = []
    let now = 0
    const answers = cachedAnswers(async (key) => { reads.push(key); return false }, 10, Infinity, () => now)
    expect(await answers.ask('old')).toBe(false)
    now = 20 // the no of `old` expired: read again, cached as the newest
    for (let i = 0; i < MAX_CACHED_NO_ANSWERS - 1; i++) await answers.ask(`flood-${i}`)
    expect(await answers.ask('old')).toBe(false)
    for (let i = MAX_CACHED_NO_ANSWERS - 1; i < MAX_CACHED_NO_ANSWERS + 5; i++) await answers.ask(`flood-${i}`)
    reads.length = 0
    expect(await answers.ask('old')).toBe(false)
    expect(reads).toEqual([])
  })
})
