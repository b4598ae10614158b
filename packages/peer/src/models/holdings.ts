import { delay } from '@jobmesh/contracts'
import { logger } from '@libp2p/logger'
import { promptTargets } from './prompt-targets.js'
import { TooManyModelsError } from './errors.js'
import {
  DEFAULT_HOLDER_COUNT_TTL_MS, DEFAULT_HOLDER_GRACE_MS, DEFAULT_MAX_RETRY_MS, DEFAULT_PROMPT_POLL_MS, DEFAULT_RETRY_MS, MAX_PROMPT_TRIES,
  MAX_TRACKED_JOBS, MODEL_SOURCE_LABELS, PROMPTS_PER_FALLBACK
} from './constants.js'
import type { PeerProfile } from '../jobs/index.js'
import type { EventLog } from '../observe/index.js'
import { jobModelUri } from '../protocol/index.js'
import type { Requirements } from '../protocol/index.js'
import { withRetry } from '../settlement/index.js'
import { MAX_MODEL_PIN_BYTES } from '../storage/index.js'
import type { ContentStore } from '../storage/index.js'
import { MAX_MODEL_RECORDS, revertName } from '@jobmesh/contracts'
import type { ChainClient } from '@jobmesh/contracts'

const log = logger('jobmesh:models')

export interface ModelHoldingsComponents {
  store: Pick<ContentStore, 'pin'>
  /** With a chain: holdings are announced, prompts followed and sent, holder counts read. */
  chain?: Pick<ChainClient, 'announceModel' | 'dropModel' | 'modelRecords' | 'modelHolding' | 'promptModel' | 'modelPrompts' | 'blockNumber' | 'deployment'>
  /** This node's address on chain (with `chain`). */
  address?: string
  /** The network's peer profiles (address and hardware): whom a fallback may prompt. */
  profiles?: () => Promise<Iterable<PeerProfile>>
  /** Where the operator reads what happened to the models (`jobmesh start` prints `model` events). */
  events?: Pick<EventLog, 'push'>
}

export interface ModelHoldingsInit {
  /** Models kept at hand from the start (`jobmesh start --model`). */
  models?: string[]
  holderGraceMs?: number
  promptPollMs?: number
  holderCountTtlMs?: number
  /** First wait before a failed model fetch or on-chain record is tried again (ms); doubles each time. */
  retryMs?: number
  /** Longest wait between two tries (ms). */
  maxRetryMs?: number
}

/** A model this peer holds, as `jobmesh status` shows it. */
export interface HeldModel {
  modelId: string
  /** How it came: kept from the start, fetched to run a job its holders left (fallback), or prefetched on a prompt. */
  source: 'start' | 'fallback' | 'prompt'
  /** Recorded on chain as held by this node (false until announced, and without a chain). */
  announced: boolean
}

export interface ModelHoldings {
  /** The models held (an `ipfs://` one once fetched and pinned), a live list (job choice reads it: a job naming one is warm). */
  readonly held: readonly string[]
  /** Every held model with how it came and whether the chain knows. */
  models(): HeldModel[]
  /** The models of `--model` not fetched yet (an `ipfs://` model nobody reachable served so far): not held. */
  fetching(): string[]
  /**
   * The `ipfs://` models whose fetch was given up, with why: no try could succeed (larger than a model may be, or
   * not a fetchable address). Not held, not tried again in this run.
   */
  givenUp(): Array<{ modelId: string, reason: string }>
  /** Holder-first: whether to leave `job` to the holders of its model for now (see {@link DEFAULT_HOLDER_GRACE_MS}). */
  defer(job: { jobId: string, modelId?: string }): boolean
  /** This peer fetched the model of a job it runs (job content pinned): it holds it now and prompts one more node. */
  acquired(job: { jobId: string, spec: { requirements: Requirements } }): void
  start(): void
  stop(): Promise<void>
}

/**
 * The models this peer holds (docs/architecture.md, Models): fetched and pinned, announced on chain
 * (`ModelRegistry`), prefetched when a prompt names this node; holder-first job choice and the fallback's prompt.
 */
export function createModelHoldings (components: ModelHoldingsComponents, init: ModelHoldingsInit = {}): ModelHoldings {
  const { chain, address, store } = components
  const graceMs = init.holderGraceMs ?? DEFAULT_HOLDER_GRACE_MS
  const ttlMs = init.holderCountTtlMs ?? DEFAULT_HOLDER_COUNT_TTL_MS
  // what --model names is held once kept (an ipfs:// model once fetched): until then job choice does not count it warm
  const startModels = [...new Set(init.models ?? [])]
  const held: string[] = []
  const source = new Map<string, HeldModel['source']>(startModels.map(m => [m, 'start']))
  const announced = new Set<string>()
  const givenUp = new Map<string, string>()
  const counts = new Map<string, { holders: number, at: number }>()
  const reading = new Set<string>()
  const firstSeen = new Map<string, number>()
  const controller = new AbortController()
  const signal = controller.signal
  const tasks = new Set<Promise<void>>()

  const tell = (text: string, level: 'info' | 'error' = 'info'): void => { components.events?.push({ kind: 'model', level, text }) }

  const background = (what: string, fn: () => Promise<void>): void => {
    const p: Promise<void> = fn()
      .catch((err: Error) => {
        if (signal.aborted) return
        log.error('%s: %e', what, err)
        tell(`${what} failed: ${err.message}`, 'error')
      })
      .finally(() => { tasks.delete(p) })
    tasks.add(p)
  }

  const readCount = async (modelId: string): Promise<void> => {
    if (chain == null || reading.has(modelId)) return
    reading.add(modelId)
    try {
      const h = await chain.modelHolding(modelId, address, { signal })
      counts.set(modelId, { holders: h.holders, at: Date.now() })
    } finally {
      reading.delete(modelId)
    }
  }

  /** Runs `fn` until it succeeds, backing off between tries, until the peer stops (or `fatal` says the error is final). */
  const untilDone = async (what: string, fn: () => Promise<void>, fatal: (err: Error) => boolean = () => false): Promise<void> => {
    await withRetry(fn, {
      what,
      signal,
      totalMs: Infinity,
      delayMs: init.retryMs ?? DEFAULT_RETRY_MS,
      maxDelayMs: init.maxRetryMs ?? DEFAULT_MAX_RETRY_MS,
      permanent: fatal,
      onFailure: (err, attempt) => {
        if (attempt === 1) tell(`cannot ${what} yet (${err.message}); trying again, less and less often`, 'error')
      }
    })
  }

  /** Drops the on-chain record of `modelId` and stops holding it here (its pinned content stays). */
  const forget = async (modelId: string, why: string): Promise<void> => {
    await chain?.dropModel(modelId, { signal })
    announced.delete(modelId)
    const i = held.indexOf(modelId)
    if (i >= 0) held.splice(i, 1)
    source.delete(modelId)
    counts.delete(modelId)
    log('dropped model %s: %s', modelId, why)
    tell(`dropped the on-chain record of model ${modelId}: ${why}`)
  }

  /**
   * Makes room for one more record: at the registry's limit, the record of the model fetched longest ago (for a job or
   * on a prompt; never one kept with --model) is dropped.
   */
  const makeRoom = async (modelId: string): Promise<void> => {
    if (announced.size < MAX_MODEL_RECORDS) return
    const oldest = droppable()
    if (oldest != null) await forget(oldest, `a node is recorded as holding at most ${MAX_MODEL_RECORDS} models, and ${modelId} came later`)
  }

  /** The recorded model fetched longest ago (for a job or on a prompt), the one to drop for room; none of --model. */
  const droppable = (): string | undefined => held.find(m => announced.has(m) && source.get(m) !== 'start')

  /**
   * Whether the registry refused for good: an id it cannot record, or its limit reached with nothing of this run's to
   * drop (two records made at once may both find room: the later one is refused, and its next try makes room).
   */
  const unrecordable = (err: Error): boolean => {
    const name = revertName(err)
    return name === 'InvalidModel' || (name === 'TooManyModels' && droppable() == null)
  }

  /**
   * Records on chain that this node holds the model; an unreachable RPC or a failed transaction is tried again, a
   * model the registry cannot record (its limit of models per node reached by models kept with --model, an id it
   * refuses) is not.
   */
  const announce = async (modelId: string): Promise<void> => {
    if (chain == null || announced.has(modelId)) return
    await untilDone(`record model ${modelId} on chain`, async () => {
      const h = await chain.modelHolding(modelId, address, { signal })
      if (!h.held) {
        await makeRoom(modelId)
        await chain.announceModel(modelId, { signal })
      }
      counts.set(modelId, { holders: h.held ? h.holders : h.holders + 1, at: Date.now() })
    }, unrecordable).catch((err: Error) => {
      if (revertName(err) !== 'TooManyModels') throw err
      throw new TooManyModelsError(`the registry records at most ${MAX_MODEL_RECORDS} models per node, and the models kept with --model fill them`, { cause: err })
    })
    announced.add(modelId)
    log('holding model %s (on chain)', modelId)
    tell(`model ${modelId} is recorded on chain as held by this node`)
  }

  /** Pins an `ipfs://` model, trying again (backing off) while nobody reachable serves it, until the peer stops. */
  const fetchModel = async (modelId: string): Promise<void> => {
    await untilDone(`fetch model ${modelId}`, async () => { await store.pin(modelId, { signal, maxBytes: MAX_MODEL_PIN_BYTES }) },
      err => err.name === 'UnsupportedUriError' || err.name === 'ContentTooLargeError')
      .catch((err: Error) => {
        if (!signal.aborted) givenUp.set(modelId, err.message)
        throw err
      })
  }

  /** Fetches and pins an `ipfs://` model (other ids name nothing to fetch), then says so on chain. */
  const keep = async (modelId: string, from: HeldModel['source']): Promise<void> => {
    if (modelId.startsWith('ipfs://')) await fetchModel(modelId)
    if (!held.includes(modelId)) held.push(modelId)
    if (!source.has(modelId)) source.set(modelId, from)
    log('holding model %s (%s)', modelId, from)
    tell(`holding model ${modelId} (${MODEL_SOURCE_LABELS[from]})`)
    await announce(modelId)
  }

  const prompt = async (modelId: string, requirements: Requirements): Promise<void> => {
    if (chain == null || address == null || components.profiles == null) return
    const exclude = new Set([address.toLowerCase()])
    let sent = 0
    let tries = 0
    for (const target of promptTargets(await components.profiles(), requirements, exclude)) {
      if (sent >= PROMPTS_PER_FALLBACK || tries >= MAX_PROMPT_TRIES) break
      if ((await chain.modelHolding(modelId, target, { signal })).held) continue
      tries++
      try {
        await chain.promptModel(modelId, [target], { signal })
        sent++
        log('prompted %s to download model %s', target, modelId)
        tell(`prompted ${target} to download model ${modelId}`)
      } catch (err) {
        // inactive, prompted within the cooldown, or this node prompted lately: the chain said no, nothing was sent
        if (revertName(err) == null) throw err
        log('prompt of %s for %s refused: %s', target, modelId, (err as Error).message)
        if (revertName(err) === 'PromptTooSoon') break
      }
    }
  }

  const followPrompts = async (): Promise<void> => {
    if (chain == null || address == null) return
    let from = chain.deployment.blockNumber ?? 0
    const pollMs = init.promptPollMs ?? DEFAULT_PROMPT_POLL_MS
    while (!signal.aborted) {
      try {
        const head = await chain.blockNumber({ signal })
        if (head >= from) {
          for (const p of await chain.modelPrompts(address, { fromBlock: from, toBlock: head }, { signal })) {
            if (held.includes(p.modelId) || !p.modelId.startsWith('ipfs://')) continue
            log('prompted by %s to download model %s', p.by, p.modelId)
            background(`prefetching model ${p.modelId}`, async () => { await keep(p.modelId, 'prompt') })
          }
          from = head + 1
        }
      } catch (err) {
        if (!signal.aborted) log('reading model prompts: %e', err)
      }
      await delay(pollMs, signal).catch(() => {})
    }
  }

  /** Drops the records of models this node is recorded as holding on chain (an earlier run's) that this run does not keep. */
  const dropStale = async (): Promise<void> => {
    if (chain == null || address == null) return
    for (const m of await chain.modelRecords(address, { signal })) {
      if (startModels.includes(m)) continue
      await forget(m, 'an earlier run of this node recorded it, this one does not keep it (--model names what a peer keeps)')
    }
  }

  /** Why a job's model had to be fetched here, as far as this peer knows. */
  const fallbackReason = (modelId: string): string => {
    if (chain == null) return 'no chain tells this peer who holds it'
    return counts.get(modelId)?.holders === 0 ? 'no active node held it' : 'its holders left the job for the holder grace'
  }

  return {
    held,
    models: () => held.map(modelId => ({ modelId, source: source.get(modelId) ?? 'start', announced: announced.has(modelId) })),
    fetching: () => startModels.filter(m => !held.includes(m) && !givenUp.has(m)),
    givenUp: () => [...givenUp].map(([modelId, reason]) => ({ modelId, reason })),
    defer (job) {
      const m = job.modelId
      if (m == null || chain == null || held.includes(m)) return false
      const now = Date.now()
      const seen = firstSeen.get(job.jobId) ?? now
      firstSeen.set(job.jobId, seen)
      // a bounded memory of model jobs (insertion order: the oldest go first, long past their grace)
      while (firstSeen.size > MAX_TRACKED_JOBS) firstSeen.delete(firstSeen.keys().next().value as string)
      if (now - seen >= graceMs) return false
      const c = counts.get(m)
      if (c == null || now - c.at > ttlMs) background(`reading the holders of ${m}`, async () => { await readCount(m) })
      return c == null || c.holders > 0
    },
    acquired (job) {
      const m = jobModelUri(job.spec)
      if (m == null || held.includes(m)) return
      held.push(m)
      source.set(m, 'fallback')
      log('job %s: fetched model %s to run it', job.jobId, m)
      tell(`fetched model ${m} to run job ${job.jobId.slice(0, 10)}: ${fallbackReason(m)}`)
      background(`holding model ${m}`, async () => {
        await announce(m)
        await prompt(m, job.spec.requirements)
      })
    },
    start () {
      background('keeping the models of --model', async () => {
        // records an earlier run left of models this run does not hold go first: the registry counts them, and the
        // peers would wait for this node to run jobs naming them
        await dropStale().catch((err: Error) => { if (!signal.aborted) log.error('reading this node\'s model records: %e', err) })
        for (const m of startModels) background(`keeping model ${m}`, async () => { await keep(m, 'start') })
      })
      background('following model prompts', followPrompts)
    },
    async stop () {
      controller.abort()
      await Promise.allSettled([...tasks])
    }
  }
}
