import { describe, expect, it } from 'vitest'
import { jobState } from '../../src/processor/job-state.js'

describe('a known job\'s state (job-state.ts)', () => {
  it('retired (over on chain, or expired) wins over every state here; then given up, ended here, worked on; otherwise the chain\'s word', () => {
    const retired = new Map([['r', 'settled' as const], ['x', 'expired' as const]])
    const host = { retired, failed: new Set(['r', 'x', 'f']), completed: new Set(['r', 'x', 'f', 'c']), contexts: new Map([['r', 1], ['x', 1], ['f', 1], ['c', 1], ['w', 1]]) }
    expect(['r', 'x', 'f', 'c', 'w', 'o'].map(id => jobState(host, id))).toEqual(['settled', 'expired', 'failed', 'complete', 'working', 'open'])
    expect(jobState({ ...host, settled: (id) => id === 'o' }, 'o')).toBe('settled')
    // given up here, completed by the other peers: complete
    expect(jobState({ ...host, doneElsewhere: new Set(['f']) }, 'f')).toBe('complete')
  })
})
