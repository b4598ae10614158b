import { formatEther } from 'ethers'
import { expiryReason, isExpired } from '@jobmesh/contracts'
import { DEADLINE_MARGIN_MS, nodesNeeded } from '../protocol/index.js'
import { failedForCertain } from '../coord/index.js'
import { ExecutionTimeoutError, isModuleFailureName } from '../executor/index.js'
import { shortId } from './attach-events.js'
import type { VerificationView } from './chain-view.js'
import type { BondableNodes } from '../settlement/index.js'

/** A peer as `describe` weighs it against a job's requirements (from its signed profile and the registry). */
export interface PeerFacts {
  peerId: string
  gpuModel: string
  vramGb: number
  address?: string
  /** From the registry, when a chain is known. */
  registered?: boolean
  /** Why the registry keeps the node out of every draw and of new work (describe.ts `outOfDraw`). */
  out?: OutOfDraw
  eligible?: boolean
}

/**
 * Why the registry keeps a registered node out of every draw and of new work, or (`unscored`) out of the draws only:
 * at QoS score 0 its weight is 0 until a probe scores it.
 */
export type OutOfDraw = 'paused' | 'exiting' | 'kicked-out' | 'unscored'

/** What a job needs (its announcement). */
export interface JobRequirementFacts {
  minVramGb: number
  gpuModel?: string
  modelId?: string
}

/** Everything `describe` knows about a job; each part may be missing. */
export interface JobFacts {
  jobId: string
  /** From the job's signed announcement in `jobmesh/index`. */
  announced?: { round: number, requirements: JobRequirementFacts, macroJobs: number, microJobsPerMacro: number, announcer: string }
  /** From the round's CRDT doc. */
  progress?: {
    done: number
    total: number
    macros: Array<{ macroIndex: number, done: number, size: number, owner?: string }>
    /** Failed attempts recorded in the doc; `failed`: the peers gave the job up. */
    failures?: { attempts: number, peers: number, reasons: string[], details?: string[], failed: boolean }
  }
  /** Signed peer profiles. */
  peers: PeerFacts[]
  /** From the escrow. */
  chain?: VerificationView
  /** The node has a chain but could not read the job there (a note says why): what it waits for is not known. */
  chainUnread?: boolean
  /** With `chainUnread`: the chain was not read yet (a start), no error: no phase is guessed. */
  chainPending?: boolean
  /** Signer (PeerId) of the round's final record. */
  finalizer?: string
  /** Of an open job nothing was done on: the known nodes whose free stake covers the bond its submitter locks. */
  bondable?: BondableNodes
  /** This node was connected to no peer: what the peers know of the job is not known here (a note says so). */
  unconnected?: boolean
  /** Parts that could not be read (chain unreachable, doc timeout), in plain words. */
  notes?: string[]
  /** Unix ms (default: now). */
  now?: number
}

export type MismatchReason = 'vram' | 'gpu-model' | OutOfDraw | 'not-registered'

export interface PeerMatch {
  peerId: string
  vramGb: number
  gpuModel: string
  /** Empty when the peer can take the job. */
  reasons: MismatchReason[]
}

/** The job's story, in plain words. */
export interface JobStory {
  jobId: string
  /** One word: unknown, open, processing, processed, failed, expired (Open past its deadline), verifying, settling, released, refunded. */
  phase: string
  matching: { peers: number, matching: number, byPeer: PeerMatch[], summary: string }
  /** What happened, oldest first. */
  lines: string[]
  /** What the job is waiting for now. */
  waitingFor: string
  /** Whether this node knows a signed announcement of the job (in `jobmesh/index`). */
  announced: boolean
  /** Set when the chain could not be read: the phase and what the job waits for are this node's best guess. */
  chainUnread?: boolean
}

/** Which of `peers` can take a job with `req`, and why the others cannot. */
export function matchPeers (req: JobRequirementFacts, peers: PeerFacts[]): JobStory['matching'] {
  const byPeer: PeerMatch[] = peers.map(p => {
    const reasons: MismatchReason[] = []
    if (p.vramGb < req.minVramGb) reasons.push('vram')
    if (req.gpuModel != null && req.gpuModel !== p.gpuModel) reasons.push('gpu-model')
    if (p.registered === false) reasons.push('not-registered')
    else if (p.out != null) reasons.push(p.out)
    return { peerId: p.peerId, vramGb: p.vramGb, gpuModel: p.gpuModel, reasons }
  })
  const matching = byPeer.filter(p => p.reasons.length === 0).length
  const parts: string[] = []
  const count = (r: MismatchReason): PeerMatch[] => byPeer.filter(p => p.reasons.includes(r))
  const vram = count('vram')
  if (vram.length > 0) {
    parts.push(`${vram.length} ${plural(vram.length, 'has', 'have')} too little VRAM (${vramList(vram)}; the job needs ${req.minVramGb} GB)`)
  }
  const model = count('gpu-model')
  if (model.length > 0) {
    parts.push(`${model.length} ${plural(model.length, 'has', 'have')} another GPU model (${[...new Set(model.map(p => p.gpuModel))].join(', ')}; the job needs ${req.gpuModel ?? 'any'})`)
  }
  // the registry's reasons and the unregistered: each a count and its words
  for (const [reason, one, many, what] of REGISTRY_WORDS) {
    const n = count(reason).length
    if (n > 0) parts.push(`${n} ${plural(n, one, many)} ${what}`)
  }
  const needs = req.minVramGb === 0 && req.gpuModel == null
    ? 'any hardware'
    : (req.minVramGb > 0 ? `${req.minVramGb} GB VRAM` : 'any VRAM') + (req.gpuModel != null ? `, GPU ${req.gpuModel}` : '')
  const summary = peers.length === 0
    ? 'no peer profile is known yet'
    : `${matching} of ${peers.length} ${plural(peers.length, 'peer', 'peers')} ${plural(matching, 'matches', 'match')} (needs ${needs})` +
      (parts.length > 0 ? `: ${parts.join('; ')}` : '')
  return { peers: peers.length, matching, byPeer, summary }
}

/** Tells a job's story from its facts: what happened, who can take it, what it is waiting for now. */
export function explainJob (facts: JobFacts): JobStory {
  const lines: string[] = []
  const { chain, announced, progress } = facts
  const req = announced?.requirements ?? { minVramGb: 0 }
  const matching = matchPeers(req, facts.peers)
  if (chain != null && chain.status !== 'None') {
    lines.push(`created on chain: fee ${formatEther(chain.feeWei)} ETH, ${chain.k} verifiers, deadline ${new Date(chain.deadline * 1000).toISOString()}`)
  }
  if (announced != null) {
    lines.push(`announced by ${shortId(announced.announcer)}: ${announced.macroJobs} MacroJobs x ${announced.microJobsPerMacro} MicroJobs` +
      (announced.round > 0 ? `, round ${announced.round}` : ''))
  }
  lines.push(`peers: ${matching.summary}`)
  if (progress != null) {
    const owners = new Set(progress.macros.map(m => m.owner).filter(o => o != null))
    // results on chain cover every MicroJob of the round (the manifest lists them all): a doc this node could not catch
    // up (its peers retired the job after the release, or are down) must not make a released job look undone
    const onChain = chain?.status === 'Submitted' || chain?.status === 'Released'
    const done = onChain ? progress.total : progress.done
    lines.push(`progress: ${done} of ${progress.total} MicroJobs done` + (onChain && progress.done < progress.total ? ' (results on chain)' : '') +
      (owners.size > 0 ? `, queues owned by ${owners.size} ${plural(owners.size, 'peer', 'peers')}` : ''))
  }
  const failures = progress?.failures
  if (failures != null && failures.attempts > 0) {
    lines.push(`${failures.attempts} failed MicroJob ${plural(failures.attempts, 'attempt', 'attempts')} on ${failures.peers} ${plural(failures.peers, 'peer', 'peers')}` +
      (failures.reasons.length > 0 ? ` (${failureWords(failures)})` : '') + gaveUp(failures, progress?.done ?? 0, chain?.status))
  }
  if (facts.finalizer != null) lines.push(`finalized by ${shortId(facts.finalizer)}`)
  if (chain?.submitter != null) lines.push(`results submitted by ${chain.submitter} in block ${chain.submitBlock ?? '?'}`)
  if (chain != null && chain.k > 0 && (chain.assigned > 0 || chain.status === 'Submitted')) {
    lines.push(`verifiers drawn ${chain.assigned}/${chain.k}, committed ${chain.commits}, revealed ${chain.reveals}` +
      (chain.status === 'Submitted' && chain.commitDeadline != null ? `; commit by block ${chain.commitDeadline}, reveal by block ${chain.revealDeadline ?? '?'} (now ${chain.headBlock})` : ''))
  }
  if (chain != null && chain.round > 0) lines.push(`rejected ${chain.round} ${plural(chain.round, 'time', 'times')}: now in round ${chain.round}`)
  for (const note of facts.notes ?? []) lines.push(`note: ${note}`)
  const { phase, waitingFor } = waiting(facts, matching)
  return { jobId: facts.jobId, phase, matching, lines, waitingFor, announced: announced != null, ...(facts.chainUnread === true ? { chainUnread: true } : {}) }
}

/** Why a job's runs failed: each failure's `name: message` when the records carry one (since 2026-12-05), else the names. */
function failureWords (failures: { reasons: string[], details?: string[] }): string {
  return failures.details?.join('; ') ?? failures.reasons.join(', ')
}

/** What the failed state says of the peers, after the count of failed attempts. */
function gaveUp (failures: { failed: boolean, reasons: string[] }, done: number, status: string | undefined): string {
  if (!failures.failed) return ''
  if (status === 'Submitted' || status === 'Released') return ': some peers gave the job up, the others completed it'
  if (failedForCertain(failures, done)) return ': the peers gave the job up'
  return `: ${notModuleFailures(failures.reasons)} gave the job up; the others may still complete it`
}

/**
 * Who gave a job up that is not failed beyond doubt: peers whose failures were not the module's own. A time limit is
 * the common one; a content fetch (`ContentFetchError`, `ContentTimeoutError`) is not, and calling it a time limit sent
 * a reader after slow peers while the job's data could not be read.
 */
function notModuleFailures (reasons: readonly string[]): string {
  const others = reasons.filter(r => !isModuleFailureName(r))
  if (others.length > 0 && others.every(r => r === ExecutionTimeoutError.name)) return 'peers whose runs ran out of time'
  const fetches = others.filter(r => r !== ExecutionTimeoutError.name)
  return `peers ${others.includes(ExecutionTimeoutError.name) ? 'whose runs ran out of time or ' : ''}that could not fetch what a run reads (${fetches.join(', ')})`
}

function waiting (facts: JobFacts, matching: JobStory['matching']): { phase: string, waitingFor: string } {
  const { chain, announced, progress } = facts
  if (facts.chainUnread === true && facts.chainPending === true) {
    // right after a start: a released job read "processing" until the first read of the chain
    return { phase: 'unknown', waitingFor: 'not known yet: this node is reading the job on chain' }
  }
  if (facts.chainUnread === true) {
    const done = progress?.done ?? 0
    const total = progress?.total ?? 0
    return {
      phase: announced == null ? 'unknown' : done > 0 ? 'processing' : 'open',
      waitingFor: 'not known while the chain cannot be read (see the note): what the job waits for depends on its escrow state' +
        (announced == null ? '; no peer this node sees announced it' : ` (${done} of ${total} MicroJobs done)`)
    }
  }
  if ((chain == null || chain.status === 'None') && announced == null) {
    return { phase: 'unknown', waitingFor: 'nothing known: the job is neither on chain nor announced to the peers this node sees' }
  }
  const status = chain?.status
  if (status === 'Released') return { phase: 'released', waitingFor: 'nothing: the escrow released the fee; outputs can be downloaded' }
  if (status === 'Refunded') return { phase: 'refunded', waitingFor: 'nothing: the fee was refunded to the creator' }
  // by the chain's clock when it was read (the escrow's), else this machine's
  const now = facts.now ?? (chain?.chainTime != null ? chain.chainTime * 1000 : Date.now())
  if (chain != null && isExpired(chain, now / 1000)) {
    return { phase: 'expired', waitingFor: `nothing will happen: ${expiryReason(chain.status)}; the creator can refund (jobmesh-dapp refund ${facts.jobId})` }
  }
  if (status === 'Submitted' && chain != null) return verification(chain, matching)
  const failures = progress?.failures
  if (failures != null && failedForCertain(failures, progress?.done ?? 0)) {
    return { phase: 'failed', waitingFor: `nothing: its MicroJobs failed ${failures.attempts} times on ${failures.peers} ${plural(failures.peers, 'peer', 'peers')} (${failureWords(failures) || 'no reason given'}) and the peers gave it up; the creator can refund after the deadline` }
  }
  if (announced == null && facts.unconnected === true) {
    return { phase: 'open', waitingFor: 'not known here: this node is connected to no peer, so it cannot tell whether the peers saw the job announced or work on it (see the note)' }
  }
  if (announced == null) return { phase: 'open', waitingFor: unannounced(facts.jobId, chain) }
  const done = progress?.done ?? 0
  const total = progress?.total ?? announced.macroJobs * announced.microJobsPerMacro
  if (done >= total) return { phase: 'processed', waitingFor: 'the finalizer to submit results on chain (every MicroJob is done)' }
  if (chain != null && status === 'Open' && now >= chain.deadline * 1000 - DEADLINE_MARGIN_MS) {
    return {
      phase: 'open',
      waitingFor: `nothing will happen: it is too close to its deadline (${new Date(chain.deadline * 1000).toISOString()}), and the peers ` +
        `stop working on a job ${DEADLINE_MARGIN_MS / 60_000} minutes before it (${done} of ${total} MicroJobs done); the creator can refund after the deadline`
    }
  }
  if (done === 0 && matching.matching === 0) {
    return { phase: 'open', waitingFor: `a peer that can take it: ${matching.summary}` }
  }
  if (chain != null && status === 'Open' && chain.activeNodes != null && chain.activeNodes < nodesNeeded(chain.k)) {
    const more = nodesNeeded(chain.k) - chain.activeNodes
    return {
      phase: 'open',
      waitingFor: `more nodes: ${chain.activeNodes} ${plural(chain.activeNodes, 'is', 'are')} registered and active, and its ${chain.k} verifiers are drawn from the nodes besides its submitter, so the peers leave it alone (no work on it could be paid) until ${more} more ${plural(more, 'joins', 'join')}; if none does by the deadline the creator can refund`
    }
  }
  const bondable = facts.bondable
  if (chain != null && status === 'Open' && done === 0 && bondable != null && bondable.known > 0 && bondable.nodes === 0) {
    return {
      phase: 'open',
      waitingFor: `a node whose free stake covers its bond: submitting its results locks ${formatEther(bondable.bond)} ETH (from its fee), the ` +
        `largest free stake among the ${bondable.known} known ${plural(bondable.known, 'node', 'nodes')} is ${formatEther(bondable.largestFree)} ETH, so the ` +
        'peers leave it alone (a lower price, or nodes with more stake); if none comes by the deadline the creator can refund'
    }
  }
  // its submitter and its k verifiers must all fit it: the peers leave it alone until that many are known (as they log;
  // a job some work was done on is told as processing)
  if (chain != null && status === 'Open' && done === 0 && matching.peers > 0 && matching.matching < nodesNeeded(chain.k)) {
    const needed = nodesNeeded(chain.k)
    return {
      phase: 'open',
      waitingFor: `more nodes that fit it: ${matching.summary}; its submitter and its ${chain.k} verifiers must all be such nodes ` +
        `(${needed} of them, ${matching.matching} known), so the peers leave it alone (no work on it could be paid) until ${needed - matching.matching} more ` +
        `${plural(needed - matching.matching, 'joins', 'join')} (0 of ${total} MicroJobs done); if none does by the deadline the creator can refund`
    }
  }
  const who = matching.peers === 0 ? '' : `; ${matching.matching} ${plural(matching.matching, 'peer', 'peers')} can work on it`
  if (done === 0) return { phase: 'open', waitingFor: `a peer to start it (0 of ${total} MicroJobs done${who})` }
  return { phase: 'processing', waitingFor: `${total - done} more MicroJobs (${done} of ${total} done${who})` }
}

/**
 * What an Open job no peer saw announced waits for, and what its creator can do: its submitting process stopped
 * between the funding transaction and the announcement (or this node reaches no peer that saw it). A new submit
 * creates and pays for another job; this one's fee comes back with a refund after its deadline.
 */
function unannounced (jobId: string, chain: VerificationView | undefined): string {
  const deadline = chain == null ? 'its deadline' : `its deadline (${new Date(chain.deadline * 1000).toISOString()})`
  return 'an announcement: the job is funded on chain but no peer has seen it announced, so no peer works on it (the process that ' +
    'submitted it stopped before announcing it, or this node reaches no peer that saw the announcement); submitting it again does ' +
    `not announce it (a new submit creates and pays for another job): the creator takes the fee back with a refund after ${deadline} ` +
    `(jobmesh-dapp refund ${jobId})`
}

function verification (chain: VerificationView, matching: JobStory['matching']): { phase: string, waitingFor: string } {
  const head = chain.headBlock
  // the verifiers come from the active nodes besides the submitter (itself one of them unless it paused or left)
  const besides = chain.activeNodes == null ? undefined : chain.activeNodes - (chain.submitterActive === false ? 0 : 1)
  if (chain.assigned < chain.k && besides != null && besides < chain.k) {
    const more = chain.k - Math.max(0, besides)
    return {
      phase: 'verifying',
      waitingFor: `more nodes: ${Math.max(0, besides)} ${plural(Math.max(0, besides), 'is', 'are')} registered and active besides its submitter, and its ${chain.k} verifiers are drawn from those, so it cannot be drawn (${chain.assigned} of ${chain.k} so far) until ${more} more ${plural(more, 'joins', 'join')}; if none does by the deadline the creator can refund`
    }
  }
  if (chain.assigned < chain.k) {
    const need = chain.k - chain.assigned
    // the draw takes only nodes that fit the job's hardware: too few of those known, and it never completes
    if (matching.peers > 0 && matching.matching < nodesNeeded(chain.k)) {
      return {
        phase: 'verifying',
        waitingFor: `verifiers that fit it: ${matching.summary}; its ${chain.k} verifiers are drawn among such nodes besides its submitter (${chain.assigned} drawn so far), so it cannot be verified unless more join; if none does by the deadline the creator can refund`
      }
    }
    const at = chain.queuePosition
    if (chain.queued === true && at != null) {
      const group = at.groupOf < at.of ? `; ${at.groupPosition} of ${at.groupOf} among the jobs needing the same VRAM and GPU model` : ''
      return {
        phase: 'verifying',
        waitingFor: `${need} ${plural(need, 'verifier', 'verifiers')} in the verification queue: position ${at.position} of ${at.of} (higher-value tasks first)${group}; all are drawn at once when enough eligible nodes are idle`
      }
    }
    if (chain.parked === true) {
      return {
        phase: 'verifying',
        waitingFor: `a place in the verification queue: it is full (${chain.queueSize ?? '?'} ${plural(chain.queueSize ?? 2, 'job', 'jobs')}) of tasks worth more, so the job is parked; its submitter draws again every few blocks, and if no verifier is drawn by the deadline the creator can refund`
      }
    }
    const queue = chain.queued === true
      ? `; the job waits in the verification queue (${chain.queueSize ?? '?'} ${plural(chain.queueSize ?? 2, 'job', 'jobs')} queued) until enough eligible nodes are idle`
      : '; the rest are drawn as eligible nodes become idle'
    return { phase: 'verifying', waitingFor: `verifiers to be drawn: ${chain.assigned} of ${chain.k} so far${queue}` }
  }
  if (!chain.sampleFixed && chain.seedDeadline != null) {
    const left = head <= chain.seedDeadline ? `until block ${chain.seedDeadline} (${chain.seedDeadline - head} blocks left)` : 'the window is over; any peer closes it, and with no peer left the creator\'s refund settles the round after the deadline'
    return { phase: 'verifying', waitingFor: `verifiers to reveal their seeds, which fix the sample: ${chain.seeds} of ${chain.k}, ${left}` }
  }
  if (chain.commitDeadline != null && head <= chain.commitDeadline && chain.commits < chain.k) {
    const left = `until block ${chain.commitDeadline} (${chain.commitDeadline - head} blocks left)`
    // drawn verifiers that missed the seed window may not vote: the reveals open only once the commit window is over
    const voters = chain.voters ?? chain.k
    const missed = `${chain.k - voters} of the ${chain.k} drawn missed the seed window and may not vote this round`
    if (voters === chain.k) return { phase: 'verifying', waitingFor: `verifiers to commit: ${chain.commits} of ${chain.k}, ${left}` }
    if (chain.commits < voters) return { phase: 'verifying', waitingFor: `verifiers to commit: ${chain.commits} of ${voters}, ${left}; ${missed}` }
    return { phase: 'verifying', waitingFor: `the commit window to close, ${left}: ${voters} committed and ${missed}; then they reveal` }
  }
  if (chain.revealDeadline != null && head <= chain.revealDeadline && chain.reveals < chain.commits) {
    return { phase: 'verifying', waitingFor: `verifiers to reveal: ${chain.reveals} of ${chain.commits}, until block ${chain.revealDeadline} (${chain.revealDeadline - head} blocks left)` }
  }
  return { phase: 'settling', waitingFor: 'settlement: the sample proof and the settle transaction (any peer sends them; with no peer left, the creator\'s refund settles the round after the deadline)' }
}

function vramList (peers: PeerMatch[]): string {
  const counts = new Map<number, number>()
  for (const p of peers) counts.set(p.vramGb, (counts.get(p.vramGb) ?? 0) + 1)
  return [...counts].sort((a, b) => b[0] - a[0]).map(([gb, n]) => n === 1 ? `${gb} GB` : `${n} x ${gb} GB`).join(', ')
}

/** How a summary names the peers the registry keeps from a job: reason, verb (one, many), what they are. */
const REGISTRY_WORDS: ReadonlyArray<readonly [MismatchReason, string, string, string]> = [
  ['paused', 'is', 'are', 'paused or not eligible on the registry'],
  ['exiting', 'is', 'are', 'leaving the registry (exiting)'],
  ['kicked-out', 'was', 'were', 'kicked out of the registry'],
  ['unscored', 'is', 'are', 'at QoS score 0, not drawn until a probe scores it (about a minute after it runs)'],
  ['not-registered', 'is', 'are', 'not registered']
]

function plural (n: number, one: string, many: string): string {
  return n === 1 ? one : many
}
