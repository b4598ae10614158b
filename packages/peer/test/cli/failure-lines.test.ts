import { ChainRevertError, EscrowNotFoundError } from '@jobmesh/contracts'
import { describe, expect, it } from 'vitest'
import { failureLines } from '../../src/cli/program.js'

describe('what a failed jobmesh command prints', () => {
  it('the cause once: left out when the message already says it', () => {
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:8599')
    expect(failureLines(new Error('reading the chain id: RPC endpoint unreachable: connect ECONNREFUSED 127.0.0.1:8599', { cause: refused })))
      .toEqual(['error: reading the chain id: RPC endpoint unreachable: connect ECONNREFUSED 127.0.0.1:8599'])
    expect(failureLines(new Error('withdraw reverted', { cause: new Error('execution reverted: NotExiting') })))
      .toEqual(['error: withdraw reverted', '  cause: execution reverted: NotExiting'])
  })

  it('a revert the chain client decoded: its name and arguments, not ethers\' "unknown custom error" beside them', () => {
    const unknown = new Error('execution reverted (unknown custom error)')
    expect(failureLines(new ChainRevertError('NodeRegistry.register reverted: Banned(0x01)', 'Banned', ['0x01'], { cause: unknown })))
      .toEqual(['error: NodeRegistry.register reverted: Banned(0x01)'])
    // one it could not decode keeps what ethers said
    expect(failureLines(new ChainRevertError('NodeRegistry.register reverted', 'UnknownRevert', [], { cause: unknown })))
      .toEqual(['error: NodeRegistry.register reverted', '  cause: execution reverted (unknown custom error)'])
  })

  it('an escrow address that answers no JobEscrow view: the message says it, not the view\'s bare revert', () => {
    const bare = Object.assign(new Error('JobEscrow.registry reverted'), { shortMessage: 'execution reverted (no data present; likely require(false) occurred' })
    const lines = failureLines(new EscrowNotFoundError('0x' + '12'.repeat(20), 'not-an-escrow', 31337, { cause: bare }))
    expect(lines).toEqual([`error: no JobEscrow contract answers at 0x${'12'.repeat(20)} on chain 31337: the contract there is not a JobEscrow ` +
      '(is the deployment file the one of this chain\'s jobmesh contracts?)'])
  })

  it('a datastore LevelDB finds damaged (its codes anywhere in the cause chain) gets what to do about it', () => {
    const io = Object.assign(new Error('IO error: /d/datastore/000005.ldb: Invalid argument'), { code: 'LEVEL_IO_ERROR' })
    for (const err of [io, new Error('reading the doc failed', { cause: io }), Object.assign(new Error('Corruption: bad block'), { code: 'LEVEL_CORRUPTION' })]) {
      const lines = failureLines(err)
      expect(lines.at(-1)).toMatch(/^ {2}the peer's datastore \(<data dir>\/datastore\) is damaged: restore datastore from a backup, or move it aside/)
    }
    expect(failureLines(Object.assign(new Error('not found'), { code: 'LEVEL_NOT_FOUND' }))).toHaveLength(1)
  })
})
