import { describe, expect, it } from 'vitest'
import { formatStatus } from '../../src/cli/status-view.js'
import type { PeerStatus } from '../../src/peer-status.js'

function status (models: PeerStatus['models']): PeerStatus {
  return {
    peerId: '12D3KooWpeer',
    addresses: ['/ip4/127.0.0.1/tcp/4001'],
    uptimeMs: 12_000,
    vramGb: 8,
    models,
    peers: [],
    jobs: [],
    work: { microJobsDone: 3, microJobsFailed: 0, ownerships: 1 }
  }
}

describe('formatStatus', () => {
  it('says how each held model came, in the words the holdings print', () => {
    const text = formatStatus(status({ held: ['ipfs://a', 'ipfs://b', 'ipfs://c'], loaded: 'ipfs://b', fallback: ['ipfs://b'], prompted: ['ipfs://c'], announced: ['ipfs://a'] }))
    expect(text).toContain('models    held: ipfs://a, ipfs://b, ipfs://c; last run: ipfs://b\n')
    expect(text).toContain('          fetched for a job: ipfs://b\n')
    expect(text).toContain('          prefetched on a prompt: ipfs://c\n')
    expect(text).toContain('          on chain: ipfs://a\n')
  })

  it('has no model lines for a peer that holds none', () => {
    expect(formatStatus(status({ held: [] }))).not.toContain('models')
  })
})
