import { describe, expect, it } from 'vitest'
import { jobState } from '../../src/processor/job-state.js'

describe('a known job\'s state (job-state.ts)', () => {
  it('over on chain wins over every state here; then given up, ended here, worked on; otherwise the chain\'s word', () => {
    const host = { retired: new Set(['r']), failed: new Set(['r', 'f']), completed: new Set(['r', 'f', 'c']), contexts: new Map([['r', 1], ['f', 1], ['c', 1], ['w', 1]]) }
    expect(['r', 'f', 'c', 'w', 'o'].map(id => jobState(host, id))).toEqual(['settled', 'failed', 'complete', 'working', 'open'])
    expect(jobState({ ...host, settled: (id) => id === 'o' }, 'o')).toBe('settled')
  })
})
