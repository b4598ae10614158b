import { short, table } from './output.js'
import { MODEL_SOURCE_LABELS } from '../models/index.js'
import { terminalSafe } from './terminal-text.js'
import type { PeerStatus } from '../peer.js'
import type { Registration } from '../peer-chain.js'
import type { NodeSlash } from '@jobmesh/contracts'

/**
 * `jobmesh start`'s wallet line: what this start did in the registry, since it may have moved the operator's money
 * (registered with a stake, topped the stake up) or changed the node's standing (resumed it from paused).
 */
export function walletLine (address: string, registration: Pick<Registration, 'registered' | 'stakeAdded' | 'stake' | 'resumed' | 'exiting'> & Partial<Pick<Registration, 'slashes'>> | undefined): string {
  if (registration == null) return `wallet    ${address} (registered)`
  if (registration.exiting) {
    return `wallet    ${address} (registered, exiting: out of every draw and takes no work; it settles and claims what it earned until the stake is withdrawn)`
  }
  if (registration.registered) return `wallet    ${address} (registered now with a stake of ${eth(registration.stake.toString())})`
  const did: string[] = []
  if (registration.resumed) did.push('it was paused (by its last stop, or by the registry after a missed task): resumed')
  if (registration.stakeAdded > 0n) {
    const slashes = registration.slashes ?? []
    const why = slashes.length === 0 ? '' : ` (it had been slashed: ${slashes.map(slashText).join('; ')})`
    did.push(`stake topped up by ${eth(registration.stakeAdded.toString())} to ${eth(registration.stake.toString())}${why}`)
  }
  return `wallet    ${address} (registered${did.length === 0 ? '' : `; ${did.join('; ')}`})`
}

const SLASH_REASONS: Record<NonNullable<NodeSlash['reason']>, string> = {
  'seed-missed': 'drawn as a verifier of job %s, it never revealed its seed (down when drawn?)',
  'verifier-penalised': 'penalised as a verifier of job %s',
  'results-rejected': 'its results of job %s were rejected',
  'late-draw': 'it submitted job %s and did not draw its verifiers in time (down after submitting?): another node drew them',
  'late-entropy': 'it submitted job %s and did not draw its verifiers in time (down after submitting?)'
}

/** One slash for people: how much, in which block, and why when the escrow said. */
function slashText (s: NodeSlash): string {
  const why = s.reason === undefined || s.jobId === undefined ? '' : `: ${SLASH_REASONS[s.reason].replace('%s', s.jobId)}`
  return `${eth(s.amount.toString())} in block ${s.blockNumber}${why}`
}

/** Formats a running peer's status for people. */
export function formatStatus (s: PeerStatus): string {
  const out: string[] = []
  out.push(`peer      ${s.peerId}${s.pid == null ? '' : ` (process ${s.pid})`}`)
  out.push(`hardware  ${s.gpuModel ?? 'Any'} / ${s.vramGb} GB VRAM`)
  if (s.models.held.length > 0 || s.models.loaded != null || s.models.fetching != null || s.models.givenUp != null) {
    // model ids come from job specs and the chain: each shown as one line without controls
    const ids = (list: readonly string[]): string => list.map(id => terminalSafe(id)).join(', ')
    out.push(`models    held: ${s.models.held.length === 0 ? 'none' : ids(s.models.held)}; last run: ${s.models.loaded == null ? 'none' : terminalSafe(s.models.loaded)}`)
    const how = [[MODEL_SOURCE_LABELS.fallback, s.models.fallback], [MODEL_SOURCE_LABELS.prompt, s.models.prompted], ['on chain', s.models.announced],
      ['fetching (not held yet)', s.models.fetching]] as const
    for (const [label, list] of how) if (list != null) out.push(`          ${label}: ${ids(list)}`)
    for (const g of s.models.givenUp ?? []) out.push(`          not fetched, given up: ${terminalSafe(g.modelId)} (${terminalSafe(g.reason)})`)
  }
  out.push(`uptime    ${Math.round(s.uptimeMs / 1000)} s`)
  for (const a of s.addresses) {
    out.push(`listen    ${a}`)
  }
  if (s.chain != null) {
    const c = s.chain
    if (c.error != null) {
      out.push(`wallet    ${c.address} (its standing unknown: the chain could not be read)`)
      out.push(`chain     ${c.error}`)
    } else {
      out.push(`wallet    ${c.address} (${c.registered ? 'registered' : 'not registered'}${standing(c)})`)
    }
    if (c.balanceWei != null) out.push(`balance   ${eth(c.balanceWei)}`)
    if (c.stakeWei != null) out.push(`stake     ${eth(c.stakeWei)}`)
    if (c.earnedWei != null) out.push(`earned    ${eth(c.earnedWei)} (payouts claimed, verifier fees and late-draw bounties)`)
    // a wallet no longer registered (withdrawn) has no record to score: the registry's defaults are not shown as one
    if (c.registered && c.qos != null) {
      const q = c.qos
      out.push(`QoS       B ${q.score} of 2000 (${q.tasks} ${q.tasks === 1 ? 'task' : 'tasks'} in the window, verifications and probes), ` +
        `R ${q.vram.toFixed(2)} (VRAM), P ${q.timeout.toFixed(2)} (commits within ${q.timeoutPct} % of a commit window; ` +
        `${q.timeouts} timed-out ${q.timeouts === 1 ? 'round' : 'rounds'})`)
    } else if (c.registered && c.score != null) {
      out.push(`QoS score ${c.score}`)
    }
    if (c.incentive != null) {
      const i = c.incentive
      const stale = i.shareMoved ? ` (${i.shareNow.toFixed(2)} now: recorded at the next poke or claim)` : ''
      out.push(`incentive share ${i.share.toFixed(2)}${stale}, ${eth(i.earnedWei)} unclaimed (jobmesh claim)`)
    }
  }
  out.push('')
  out.push(`connected peers: ${s.peers.length}`)
  if (s.peers.length > 0) {
    out.push(table(['peer', 'address'], s.peers.map(p => [p.peerId, p.addresses[0] ?? ''])).trimEnd())
  }
  out.push('')
  out.push(`jobs known: ${s.jobs.length}`)
  if (s.jobs.length > 0) {
    out.push(table(['job', 'MicroJobs', 'value (wei/s)', 'state'],
      s.jobs.map(j => [short(j.jobId, 10), j.microJobs, j.value, j.state])).trimEnd())
  }
  if (s.following != null) out.push(`following ${s.following.docs} CRDT docs, ${s.following.topics} gossip topics (a job's are closed once it is released or refunded)`)
  out.push('')
  out.push(`own work since this start: ${s.work.microJobsDone} MicroJobs done, ${s.work.microJobsFailed} failed, ` +
    `${s.work.ownerships} queue ownerships` + (s.work.currentJob != null ? `, working on ${short(s.work.currentJob, 10)}` : ''))
  return out.join('\n') + '\n'
}

/** Wei (decimal string) as ETH, `1.0 ETH`, `0.3666 ETH` (plain BigInt math: `status` loads no chain library). */
function eth (wei: string): string {
  const v = BigInt(wei)
  const unit = 10n ** 18n
  const frac = (v % unit).toString().padStart(18, '0').replace(/0+$/, '')
  return `${v / unit}.${frac === '' ? '0' : frac} ETH`
}

/** What the registry says of a registered node beyond `registered`: exiting and kicked out say more than paused. */
function standing (c: NonNullable<PeerStatus['chain']>): string {
  if (c.exiting === true) {
    const from = c.withdrawableAt == null ? 'once the cooldown ends' : `from ${new Date(c.withdrawableAt * 1000).toISOString().replace('.000Z', 'Z')} (chain time)`
    return `, exiting: out of every draw; \`jobmesh withdraw\` takes the stake back ${from}`
  }
  if (c.kickedOut === true) return ', kicked out by the registry (QoS too low)'
  if (c.paused !== true) return ''
  const s = c.stayedPaused
  if (s == null) return ', paused'
  return `, paused by the registry: it missed a ${s.cause === 'probe' ? 'probe' : 'verification task'} in block ${s.pausedBlock}, its ${ordinal(s.inARow)} pause in a row with no task scored between; ` +
    'left out of the verifier draw (each miss scores 0, and a window of such scores gets a node kicked out for good): ' +
    'read its errors (stderr, the dashboard\'s events), then restart the peer to resume it'
}

/** 1st, 2nd, 3rd, 4th... 11th, 12th, 13th, 21st. */
function ordinal (n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13
  const suffix = teen ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th'
  return `${n}${suffix}`
}
