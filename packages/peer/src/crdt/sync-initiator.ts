import { anySignal } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { peerIdFromString } from '@libp2p/peer-id'
import { raceSignal } from 'race-signal'
import { SYNC_PROTOCOL } from './constants.js'
import { dropped } from './admit.js'
import { DocNotFoundError, DocNotOpenError, PeerNotAdmittedError } from './errors.js'
import { FrameStream } from './frame-stream.js'
import { noteSent } from './open-doc.js'
import { ORIGIN_SYNC_PULL } from './origins.js'
import { initiateSync } from './sync.js'
import type { Admitted, UpdateAdmitted } from './admit.js'
import type { ConfirmOptions, ConfirmResult, DocStoreComponents, SyncOptions } from './doc-store-types.js'
import type { DocStoreMetrics } from './metrics.js'
import type { ApplyRemote, OpenDoc } from './open-doc.js'
import type { SyncResult } from './sync.js'
import type { PeerId } from '@libp2p/interface'

const log = logger('jobmesh:crdt')

/** The exchange running per `<doc name>\n<peer>`. */
export type InflightSyncs = Map<string, { push: boolean, result: Promise<SyncResult> }>

export interface SyncInitiatorComponents {
  libp2p: Pick<DocStoreComponents['libp2p'], 'dialProtocol' | 'getPeers'>
  metrics: DocStoreMetrics
  docs: Map<string, OpenDoc>
  inflight: InflightSyncs
  /** Aborted when the store stops. */
  shutdown: AbortSignal
  syncTimeoutMs: number
  syncChunkBytes: number
  maxSyncBytes: number
  confirmTimeoutMs: number
  admitted: Admitted
  updateAdmitted: UpdateAdmitted
  applyRemote: ApplyRemote
  /** Throws once the store is stopped. */
  assertRunning(): void
}

/** The initiating side of `/jobmesh/sync/1.0.0` (docs/crdt.md, Sync protocol): `sync` and `confirm`. */
export interface SyncInitiator {
  sync(name: string, peer: PeerId | string, options?: SyncOptions): Promise<SyncResult>
  confirm(name: string, options?: ConfirmOptions): Promise<ConfirmResult>
}

export function createSyncInitiator (components: SyncInitiatorComponents): SyncInitiator {
  const { metrics, docs, inflight } = components

  async function sync (name: string, peer: PeerId | string, options: SyncOptions = {}): Promise<SyncResult> {
    components.assertRunning()
    const entry = docs.get(name)
    if (entry == null) {
      throw new DocNotOpenError(`${name} is not open`)
    }
    const peerId = typeof peer === 'string' ? peerIdFromString(peer) : peer
    if (!(await components.admitted(peerId.toString(), name))) {
      metrics.syncRefused++
      throw new PeerNotAdmittedError(`${peerId.toString()} may not sync ${name}`)
    }
    const push = options.push ?? true
    // one exchange per (doc, peer) at a time: a pull joins a running exchange; a push waits for a running pull
    const key = `${name}\n${peerId.toString()}`
    const running = inflight.get(key)
    if (running != null && options.fresh !== true && (!push || running.push)) {
      return running.result
    }
    const previous = running?.result.catch(() => {})
    // the timeout starts now: waiting for the exchange already running with this peer counts against it (a confirm
    // queued behind a slow catch-up with a starved peer held a MacroJob claim for 9 s, 16 processes on 2 cores)
    const signal = exchangeSignal(options)
    const result = (async () => {
      if (previous != null) await raceSignal(previous, signal)
      return runSync(entry, peerId, push, options, signal)
    })().finally(() => {
      if (inflight.get(key)?.result === result) inflight.delete(key)
    })
    inflight.set(key, { push, result })
    return result
  }

  async function confirm (name: string, options: ConfirmOptions = {}): Promise<ConfirmResult> {
    components.assertRunning()
    if (!docs.has(name)) {
      throw new DocNotOpenError(`${name} is not open`)
    }
    const timeoutMs = options.timeoutMs ?? components.confirmTimeoutMs
    const connected = components.libp2p.getPeers()
    const asked = options.peers == null ? undefined : new Set(options.peers.map(String))
    const peers = asked == null ? connected : connected.filter(p => asked.has(p.toString()))
    const results = await Promise.allSettled(peers.map(async peer =>
      sync(name, peer, { push: true, fresh: true, quiet: true, timeoutMs, signal: options.signal })))
    options.signal?.throwIfAborted()
    const unreached = results.filter(r => r.status === 'rejected' && (r.reason as Error | undefined)?.name !== DocNotFoundError.name).length
    return { exchanged: results.filter(r => r.status === 'fulfilled').length, unreached, skipped: connected.length - peers.length }
  }

  /** Aborted by the store's stop, the exchange's timeout or the caller. */
  function exchangeSignal (options: SyncOptions): AbortSignal {
    return anySignal([components.shutdown, options.signal], options.timeoutMs ?? components.syncTimeoutMs)
  }

  async function runSync (entry: OpenDoc, peerId: PeerId, push: boolean, options: SyncOptions, signal: AbortSignal): Promise<SyncResult> {
    signal.throwIfAborted()
    let frames: FrameStream | undefined
    const onAbort = (): void => { frames?.abort(signal.reason instanceof Error ? signal.reason : new Error('sync aborted')) }
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      // the initiator speaks first, so the protocol name goes out with its first frame (one round trip less)
      const stream = await components.libp2p.dialProtocol(peerId, SYNC_PROTOCOL, { signal, negotiateFully: false })
      frames = new FrameStream(stream, { chunkBytes: components.syncChunkBytes, maxDiffBytes: components.maxSyncBytes })
      signal.throwIfAborted()
      const published = entry.published
      const peer = peerId.toString()
      const result = await initiateSync(frames, entry.name, entry.doc, push, async update => {
        if (await components.updateAdmitted(peer, entry.name, update) !== 'yes') return dropped(metrics, entry.name, peer, update)
        return components.applyRemote(entry, update, ORIGIN_SYNC_PULL) !== 'failed'
      }, { signal, quiet: options.quiet })
      metrics.syncCompleted++
      if (push) {
        entry.synced.add(peerId.toString())
        noteSent(entry, peerId.toString(), published)
      }
      metrics.syncBytesIn += result.received
      metrics.syncBytesOut += result.sent
      log('synced %s with %p: received %d, sent %d bytes', entry.name, peerId, result.received, result.sent)
      return result
    } catch (err) {
      if ((err as Error).name === DocNotFoundError.name) {
        metrics.syncNotFound++
      } else {
        metrics.syncFailed++
      }
      frames?.abort(err as Error)
      throw err
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  return { sync, confirm }
}
