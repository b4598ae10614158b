import { formatEther } from 'ethers'
import { CLIENT_AGENT } from '../protocol/index.js'
import type { EventLog } from './event-log.js'
import type { Processor, ProcessorEvents } from '../processor/index.js'
import type { Settlement, SettlementEvents } from '../settlement/index.js'
import type { IdentifyResult, Libp2p, PeerId } from '@libp2p/interface'

export interface EventSources {
  libp2p?: Pick<Libp2p, 'addEventListener' | 'removeEventListener'>
  processor?: Pick<Processor, 'addEventListener' | 'removeEventListener'>
  settlement?: Pick<Settlement, 'addEventListener' | 'removeEventListener'>
}

/** 10^12 wei: the sixth decimal of an ETH. */
const MICRO_ETH = 10n ** 12n

/**
 * Wei as ETH rounded to at most 6 decimals (`0.066667`, `0.001182` for 0.0011818...), for lines people read; an amount
 * that is not zero but rounds to it is written whole (`0.00000003`: a small job's pay read `claimed 0 ETH`).
 */
export function ethText (wei: bigint): string {
  const sign = wei < 0n ? -1n : 1n
  const rounded = sign * ((sign * wei + MICRO_ETH / 2n) / MICRO_ETH) * MICRO_ETH
  if (rounded === 0n && wei !== 0n) return formatEther(wei)
  const [whole, frac = ''] = formatEther(rounded).split('.')
  const cut = frac.slice(0, 6).replace(/0+$/, '')
  return cut === '' ? whole : `${whole}.${cut}`
}

/** `0x1234ab…cdef`: short enough for a line, long enough to tell jobs apart. */
export function shortId (id: string): string {
  return id.length > 14 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id
}

type Detach = () => void

/**
 * A line when a peer connects (once it identified itself: a DApp's client, {@link CLIENT_AGENT}, gets none, since every
 * `jobmesh-dapp` call connects and goes) and when a peer that got one disconnects.
 */
function attachConnections (libp2p: NonNullable<EventSources['libp2p']>, log: EventLog): Detach {
  const shown = new Set<string>()
  const onIdentify = (evt: CustomEvent<IdentifyResult>): void => {
    const id = evt.detail.peerId.toString()
    if (shown.has(id) || evt.detail.agentVersion?.split('/')[0] === CLIENT_AGENT) return
    shown.add(id)
    log.push({ kind: 'peer:connect', level: 'info', text: `connected to ${shortId(id)}` })
  }
  const onDisconnect = (evt: CustomEvent<PeerId>): void => {
    const id = evt.detail.toString()
    if (!shown.delete(id)) return
    log.push({ kind: 'peer:disconnect', level: 'info', text: `disconnected from ${shortId(id)}` })
  }
  libp2p.addEventListener('peer:identify', onIdentify)
  libp2p.addEventListener('peer:disconnect', onDisconnect)
  return () => {
    libp2p.removeEventListener('peer:identify', onIdentify)
    libp2p.removeEventListener('peer:disconnect', onDisconnect)
  }
}

/**
 * Turns the processor's, the settlement's and libp2p's events into {@link PeerEvent}s on `log`. Returns a function
 * that removes every listener.
 */
export function attachPeerEvents (sources: EventSources, log: EventLog): Detach {
  const detach: Detach[] = []
  const { libp2p, processor, settlement } = sources
  if (libp2p != null) detach.push(attachConnections(libp2p, log))
  if (processor != null) {
    const on = <K extends keyof ProcessorEvents & string>(type: K, fn: (d: ProcessorEvents[K]) => void): void => {
      const listener = (evt: CustomEvent<ProcessorEvents[K]>): void => { fn(evt.detail) }
      processor.addEventListener(type, listener)
      detach.push(() => { processor.removeEventListener(type, listener) })
    }
    on('ownership', d => {
      log.push({ kind: 'ownership', level: 'info', jobId: d.jobId, text: `queue owner of MacroJob ${d.macroIndex} of job ${shortId(d.jobId)} (term ${d.term})` })
    })
    // a job this peer ran MicroJobs of, in this run: a restarted peer that finds an old job done says nothing of it
    const worked = new Set<string>()
    on('microjob:start', d => { worked.add(d.jobId) })
    on('job:complete', d => {
      const ran = worked.delete(d.jobId)
      if (!d.finalizer && !ran) return
      log.push({ kind: 'job:complete', level: 'info', jobId: d.jobId, text: `job ${shortId(d.jobId)}: every MicroJob done` + (d.finalizer ? ', finalizing' : '') })
    })
    on('job:failed', d => {
      const failures = `its MicroJobs failed ${d.attempts} times on ${d.peers} ${d.peers === 1 ? 'peer' : 'peers'} (${(d.details ?? d.reasons).slice(0, 3).join('; ')})`
      // a restart that finds a job it gave up before says so, not as a new failure
      if (d.earlier === true) log.push({ kind: 'job:failed', level: 'info', jobId: d.jobId, text: `job ${shortId(d.jobId)} stays given up (before this start): ${failures}` })
      else log.push({ kind: 'job:failed', level: 'error', jobId: d.jobId, text: `gave job ${shortId(d.jobId)} up: ${failures}` })
    })
    on('turn:unanswered', d => {
      log.push({ kind: 'turn:unanswered', level: 'error', jobId: d.jobId, text: `left the room of MacroJob ${d.macroIndex} of job ${shortId(d.jobId)}: its queue did not answer a turn in ${Math.round(d.waitedMs / 1000)} s` + (d.owner != null ? ` (owner ${shortId(d.owner)})` : '') })
    })
    on('microjob:error', d => {
      log.push({ kind: 'microjob:error', level: 'error', jobId: d.jobId, text: `MicroJob ${d.macroIndex}.${d.index} of job ${shortId(d.jobId)} failed: ${d.error.message}` })
    })
  }
  if (settlement != null) {
    const on = <K extends keyof SettlementEvents & string>(type: K, fn: (d: SettlementEvents[K]) => void): void => {
      const listener = (evt: Event): void => { fn((evt as CustomEvent<SettlementEvents[K]>).detail) }
      settlement.addEventListener(type, listener)
      detach.push(() => { settlement.removeEventListener(type, listener) })
    }
    on('finalized', d => {
      if (d.outcome === 'already') {
        // after "every MicroJob done, finalizing": the results went on chain from another peer (or the job ended)
        log.push({ kind: 'finalized', level: 'info', jobId: d.jobId, text: `job ${shortId(d.jobId)}: nothing to submit here, it is ${d.status} already` })
        return
      }
      if (d.outcome !== 'submitted') return
      const copiers = d.copiers ?? []
      const fakers = d.fakers ?? []
      log.push({
        kind: 'finalized',
        level: 'info',
        jobId: d.jobId,
        text: `finalized job ${shortId(d.jobId)}: results submitted in block ${d.blockNumber ?? '?'}` + (d.round != null && d.round > 0 ? ` (round ${d.round})` : '') +
          (copiers.length === 0 ? '' : `; not paid, signed other peers' results as their own: ${copiers.map(shortId).join(', ')}`) +
          (fakers.length === 0 ? '' : `; not paid, signed outputs a re-run did not give: ${fakers.map(shortId).join(', ')}`)
      })
    })
    on('verified', d => {
      log.push({ kind: 'verified', level: 'info', jobId: d.jobId, text: `verified job ${shortId(d.jobId)} as a drawn verifier: re-ran ${d.positions.length} sampled MicroJobs, ` + (d.revealed ? 'revealed' : 'could not reveal (the job moved on)') })
    })
    on('settled', d => {
      const what = d.released ? 'released: processors and verifiers can claim' : d.rejected ? 'rejected: the culprit is slashed, the job reopens' : `still ${d.status}`
      log.push({ kind: 'settled', level: 'info', jobId: d.jobId, text: `settled job ${shortId(d.jobId)}: ${what}` })
    })
    on('claimed', d => {
      const total = d.claimed + d.withdrawn
      log.push({ kind: 'claimed', level: 'info', jobId: d.jobId, amountWei: total.toString(), text: `claimed ${ethText(total)} ETH for job ${shortId(d.jobId)} (payout ${ethText(d.claimed)}, credits ${ethText(d.withdrawn)})` })
    })
    on('ended', d => {
      // a release has its `settled` line (from the peer that settled it) and `claimed` lines; a refund had none
      if (d.status !== 'Refunded') return
      log.push({ kind: 'refunded', level: 'info', jobId: d.jobId, text: `job ${shortId(d.jobId)} refunded: its fee went back to its creator` })
    })
    on('reannounced', d => {
      log.push({ kind: 'reannounced', level: 'info', jobId: d.jobId, text: `job ${shortId(d.jobId)} re-announced for round ${d.round}` })
    })
    on('drew', d => {
      log.push({ kind: 'drew', level: 'info', jobId: d.jobId, text: `drew the verifiers of job ${shortId(d.jobId)}: its submitter let the grace pass (late-draw bounty credited)` })
    })
    on('probed', d => {
      log.push({ kind: 'probed', level: 'info', text: `answered a probe of the registry in block ${d.blockNumber} (it keeps this node's QoS score fresh while idle)` })
    })
    on('paused', d => {
      const missed = `missed a ${d.cause === 'probe' ? 'probe' : 'verification task'}, so the registry paused this node in block ${d.pausedBlock}`
      log.push(d.outcome === 'resumed'
        ? { kind: 'paused', level: 'info', text: `${missed}: resumed in block ${d.blockNumber ?? '?'}` }
        : {
            kind: 'paused',
            level: 'error',
            text: `${missed} (${d.inARow} pauses in a row with no task scored between): it stays out of the verifier draw, ` +
              'since each miss scores 0 and a window of such scores gets a node kicked out for good; read the errors before it, then restart the peer to resume it'
          })
    })
    on('error', d => {
      log.push({ kind: 'error', level: 'error', jobId: d.jobId, text: `${d.step}${d.jobId != null ? ` of job ${shortId(d.jobId)}` : ''} failed: ${d.error.name}: ${d.error.message}` })
    })
  }
  return () => { for (const d of detach) d() }
}
