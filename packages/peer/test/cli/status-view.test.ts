import { describe, expect, it } from 'vitest'
import { formatStatus, walletLine } from '../../src/cli/status-view.js'
import { incentiveJson } from '../../src/observe/index.js'
import { accountStatus } from '../../src/peer-status.js'
import type { PeerStatus } from '../../src/peer-status.js'
import type { AccountView } from '../../src/observe/index.js'
import type { OwnPause } from '../../src/settlement/index.js'

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

  it('shows a job\'s value in whole wei per second, exactly as submit prints it (it showed 1.613e+14, then lost wei past 2^53)', () => {
    const text = formatStatus({ ...status({ held: [] }), jobs: [{ jobId: '0x' + 'ab'.repeat(32), microJobs: 32, value: '9677419354838709', state: 'working' }] } as PeerStatus)
    expect(text).toMatch(/ 9677419354838709 +working/)
    expect(text).not.toContain('e+')
  })

  it('names a model whose fetch was given up, with why, apart from those still being fetched', () => {
    const text = formatStatus(status({ held: [], fetching: ['ipfs://b'], givenUp: [{ modelId: 'ipfs://a', reason: 'ipfs://a is larger than a model may be' }] }))
    expect(text).toContain('models    held: none; last run: none\n')
    expect(text).toContain('          fetching (not held yet): ipfs://b\n')
    expect(text).toContain('          not fetched, given up: ipfs://a (ipfs://a is larger than a model may be)\n')
  })

  it('has no model lines for a peer that holds none', () => {
    expect(formatStatus(status({ held: [] }))).not.toContain('models')
  })

  it('says an exiting node is exiting, not merely paused (the registry pauses it too), and a kicked-out one', () => {
    const wallet = (chain: PeerStatus['chain']): string | undefined => formatStatus({ ...status({ held: [] }), chain }).split('\n').find(l => l.startsWith('wallet'))
    const a = '0x' + 'ab'.repeat(20)
    expect(wallet({ address: a, registered: true, paused: true, exiting: true })).toBe(`wallet    ${a} (registered, exiting: out of every draw; \`jobmesh withdraw\` takes the stake back once the cooldown ends)`)
    expect(wallet({ address: a, registered: true, paused: true, exiting: true, withdrawableAt: 1_796_558_400 }))
      .toBe(`wallet    ${a} (registered, exiting: out of every draw; \`jobmesh withdraw\` takes the stake back from 2026-12-06T12:00:00Z (chain time))`)
    expect(wallet({ address: a, registered: true, paused: true, kickedOut: true })).toBe(`wallet    ${a} (registered, kicked out by the registry (QoS too low))`)
    expect(wallet({ address: a, registered: true, paused: true })).toBe(`wallet    ${a} (registered, paused)`)
    expect(wallet({ address: a, registered: true, paused: false, exiting: false })).toBe(`wallet    ${a} (registered)`)
  })

  it('says why a node the registry paused stays paused when its pause duty left it so, and only then', () => {
    const a = '0x' + 'ab'.repeat(20)
    const account = (over: Partial<AccountView>): AccountView => ({
      address: a, balanceWei: 0n, registered: true, stakeWei: 10n ** 16n, score: 0n, eligible: false, paused: true, exiting: false,
      kickedOut: false, busy: false, earnedWei: 0n, paidJobs: 0, ...over
    })
    const stayed: OwnPause = { cause: 'task', pausedBlock: 133, inARow: 3, outcome: 'stayed' }
    const wallet = (view: AccountView, pause?: OwnPause): string | undefined =>
      formatStatus({ ...status({ held: [] }), chain: accountStatus(view, pause) }).split('\n').find(l => l.startsWith('wallet'))
    expect(wallet(account({}), stayed)).toBe(`wallet    ${a} (registered, paused by the registry: it missed a verification task in block 133, ` +
      'its 3rd pause in a row with no task scored between; left out of the verifier draw (each miss scores 0, and a window of such scores gets ' +
      'a node kicked out for good): read its errors (stderr, the dashboard\'s events), then restart the peer to resume it)')
    expect(wallet(account({}), { ...stayed, cause: 'probe', inARow: 11 })).toContain('it missed a probe in block 133, its 11th pause in a row')
    // resumed by the duty, paused again by its own stop or another way: the plain word
    expect(wallet(account({}), { ...stayed, outcome: 'resumed' })).toBe(`wallet    ${a} (registered, paused)`)
    expect(wallet(account({}))).toBe(`wallet    ${a} (registered, paused)`)
    // left paused, then resumed (an operator's resume): no longer paused, nothing said
    expect(wallet(account({ paused: false, eligible: true }), stayed)).toBe(`wallet    ${a} (registered)`)
    // exiting or kicked out say more than a pause
    expect(wallet(account({ kickedOut: true }), stayed)).toBe(`wallet    ${a} (registered, kicked out by the registry (QoS too low))`)
    expect(accountStatus(account({ exiting: true }), stayed).stayedPaused).toBeUndefined()
    expect(accountStatus(account({ exiting: true, withdrawableAt: 1_796_558_400 })).withdrawableAt).toBe(1_796_558_400)
    expect(accountStatus(account({})).withdrawableAt).toBeUndefined()
  })

  it('a wallet withdrawn shows no QoS line (the registry\'s defaults are no record of it); a chain away is said, not left out', () => {
    const lines = (chain: PeerStatus['chain']): string[] => formatStatus({ ...status({ held: [] }), chain }).split('\n')
    const a = '0x' + 'ab'.repeat(20)
    expect(lines({ address: a, registered: true, score: '1000' })).toContain('QoS score 1000')
    expect(lines({ address: a, registered: false, score: '1000' }).filter(l => l.startsWith('QoS'))).toEqual([])
    const away = lines({ address: a, registered: true, error: 'RPC endpoint unreachable: connect ECONNREFUSED 127.0.0.1:8599' })
    expect(away).toContain(`wallet    ${a} (its standing unknown: the chain could not be read)`)
    expect(away).toContain('chain     RPC endpoint unreachable: connect ECONNREFUSED 127.0.0.1:8599')
  })
})

describe('incentive share', () => {
  it('shows the current share beside the recorded one once they differ in the two decimals printed; the peer decides, the dashboard reads it', () => {
    const line = (share: number, shareNow: number): string | undefined => formatStatus({
      ...status({ held: [] }),
      chain: { address: '0x' + 'ab'.repeat(20), registered: true, incentive: incentiveJson({ share, shareNow, earnedWei: 10n ** 15n }) }
    }).split('\n').find(l => l.startsWith('incentive'))
    expect(line(0.5, 0.504)).toBe('incentive share 0.50, 0.001 ETH unclaimed (jobmesh claim)')
    expect(line(0.5, 0.496)).toBe('incentive share 0.50, 0.001 ETH unclaimed (jobmesh claim)')
    expect(line(0.5, 0.75)).toBe('incentive share 0.50 (0.75 now: recorded at the next poke or claim), 0.001 ETH unclaimed (jobmesh claim)')
    expect(line(0.5, 0.49)).toBe('incentive share 0.50 (0.49 now: recorded at the next poke or claim), 0.001 ETH unclaimed (jobmesh claim)')
    expect(incentiveJson({ share: 0.5, shareNow: 0.75, earnedWei: 0n })).toEqual({ share: 0.5, shareNow: 0.75, shareMoved: true, earnedWei: '0' })
  })
})

describe('walletLine', () => {
  const a = '0x' + 'ab'.repeat(20)
  const ETH = 10n ** 18n
  it('says what the start did in the registry: registered, resumed, stake topped up, or nothing', () => {
    expect(walletLine(a, { registered: true, stakeAdded: ETH / 10n, stake: ETH / 10n, resumed: false, exiting: false })).toBe(`wallet    ${a} (registered now with a stake of 0.1 ETH)`)
    expect(walletLine(a, { registered: false, stakeAdded: 7n * ETH / 100n, stake: ETH / 10n, resumed: true, exiting: false }))
      .toBe(`wallet    ${a} (registered; it was paused (by its last stop, or by the registry after a missed task): resumed; stake topped up by 0.07 ETH to 0.1 ETH)`)
    expect(walletLine(a, { registered: false, stakeAdded: 0n, stake: ETH, resumed: true, exiting: false })).toBe(`wallet    ${a} (registered; it was paused (by its last stop, or by the registry after a missed task): resumed)`)
    expect(walletLine(a, { registered: false, stakeAdded: 0n, stake: ETH, resumed: false, exiting: false })).toBe(`wallet    ${a} (registered)`)
    expect(walletLine(a, { registered: false, stakeAdded: 0n, stake: ETH, resumed: false, exiting: true }))
      .toBe(`wallet    ${a} (registered, exiting: out of every draw and takes no work; it settles and claims what it earned until the stake is withdrawn)`)
  })

  it('names the slashes a top-up made good, with their job and reason when the escrow gave one', () => {
    const job = '0x' + '12'.repeat(32)
    const slashes = [
      { amount: ETH / 50n, stakeLeft: 8n * ETH / 100n, blockNumber: 41, transactionHash: '0x01', reason: 'seed-missed' as const, jobId: job },
      { amount: ETH / 100n, stakeLeft: 7n * ETH / 100n, blockNumber: 57, transactionHash: '0x02' }
    ]
    expect(walletLine(a, { registered: false, stakeAdded: 3n * ETH / 100n, stake: ETH / 10n, resumed: true, exiting: false, slashes }))
      .toBe(`wallet    ${a} (registered; it was paused (by its last stop, or by the registry after a missed task): resumed; stake topped up by 0.03 ETH to 0.1 ETH ` +
        `(it had been slashed: 0.02 ETH in block 41: drawn as a verifier of job ${job}, it never revealed its seed (down when drawn?); 0.01 ETH in block 57))`)
  })
})
