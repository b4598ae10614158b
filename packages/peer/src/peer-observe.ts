import { prometheusMetrics } from '@libp2p/prometheus-metrics'
import { Registry } from 'prom-client'
import { startHttpServer } from './http/index.js'
import { NetworkObserver, attachPeerEvents, describeJob, registerPeerMetrics } from './observe/index.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { DocStore } from './crdt/index.js'
import type { HttpAddress, HttpServer } from './http/index.js'
import type { Server } from 'node:http'
import type { JobmeshNode, NodeInit } from './node/index.js'
import type { EventLog } from './observe/index.js'
import type { Processor } from './processor/index.js'
import type { Settlement } from './settlement/index.js'
import type { HeldModel } from './models/index.js'

/** The metrics registry a peer with an HTTP listener gives libp2p (before the node starts) and its own counters. */
export function metricsFor (http: HttpAddress | undefined): { registry?: Registry, metrics?: NodeInit['metrics'] } {
  if (http == null) return {}
  const registry = new Registry()
  return { registry, metrics: prometheusMetrics({ registry }) }
}

export interface ObservedParts {
  node: JobmeshNode
  docs: DocStore
  events: EventLog
  processor?: Processor
  settlement?: Settlement
  chain?: ChainClient
  address?: string
  /** The models this peer holds. */
  models?: () => HeldModel[]
}

/**
 * Wires a peer's events into its event log and, with an HTTP listener, starts the network observer, the
 * Prometheus counters and the dashboard server. Pushes the matching stops onto `stack`.
 */
export async function startObservability (parts: ObservedParts, init: { http?: HttpAddress, server?: Server, registry?: Registry, gpuModel?: string, vramGb?: number },
  stack: Array<() => Promise<void>>): Promise<HttpServer | undefined> {
  const detach = attachPeerEvents({ libp2p: parts.node.libp2p, processor: parts.processor, settlement: parts.settlement }, parts.events)
  stack.push(async () => { detach() })
  if (init.http == null || init.registry == null) return undefined
  const observer = new NetworkObserver({
    node: parts.node,
    docs: parts.docs,
    events: parts.events,
    processor: parts.processor,
    chain: parts.chain,
    address: parts.address,
    models: parts.models
  }, { gpuModel: init.gpuModel, vramGb: init.vramGb })
  await observer.start()
  stack.push(async () => { observer.stop() })
  const detachMetrics = registerPeerMetrics(init.registry, {
    processor: parts.processor,
    settlement: parts.settlement,
    docs: parts.docs,
    jobs: () => observer.jobCounts()
  })
  stack.push(async () => { detachMetrics() })
  const server = await startHttpServer({
    observer,
    registry: init.registry,
    describe: async (jobId, options) => describeJob({ docs: parts.docs, chain: parts.chain, libp2p: parts.node.libp2p, privateKey: parts.node.privateKey, peerId: parts.node.peerId.toString() }, jobId, options)
  }, { ...init.http, server: init.server })
  stack.push(async () => { await server.close() })
  return server
}
