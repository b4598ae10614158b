import { describe, expect, it } from 'vitest'
import { exportLines } from '../../src/cli/commands/devnet.js'
import { collectMultiaddr } from '../../src/cli/options.js'

describe('jobmesh devnet exports', () => {
  it('prints the four variables both CLIs read, and the bootstrap list parses back', () => {
    const lines = exportLines({
      anvil: { rpcUrl: 'http://127.0.0.1:40000' } as never,
      deploymentFile: '/tmp/d/deployment-31337.json',
      bootstrap: ['/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWPfna2frvVfYnnXEWwpZuwYVub6ktHUrBT2Xtf3n7zbB6', '/ip4/127.0.0.1/tcp/4002/p2p/12D3KooWG1Sok8sSv7TsWQVcU92DwTnRXP8UoKSi2wVoB2oSDu19'],
      dapp: { address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', privateKey: '0x' + 'ab'.repeat(32) }
    })
    expect(lines).toEqual([
      'export JOBMESH_RPC_URL=http://127.0.0.1:40000',
      'export JOBMESH_DEPLOYMENT=/tmp/d/deployment-31337.json',
      'export JOBMESH_BOOTSTRAP=/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWPfna2frvVfYnnXEWwpZuwYVub6ktHUrBT2Xtf3n7zbB6,/ip4/127.0.0.1/tcp/4002/p2p/12D3KooWG1Sok8sSv7TsWQVcU92DwTnRXP8UoKSi2wVoB2oSDu19',
      `export JOBMESH_PRIVATE_KEY=0x${'ab'.repeat(32)}`
    ])
    const value = lines[2].slice('export JOBMESH_BOOTSTRAP='.length)
    expect(collectMultiaddr(value)).toHaveLength(2)
    expect(() => collectMultiaddr('not-a-multiaddr')).toThrow(/not a multiaddr/)
  })
})
