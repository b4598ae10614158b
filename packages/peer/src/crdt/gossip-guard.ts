import { TopicValidatorResult } from '@libp2p/gossipsub'
import type { Message, TopicValidatorFn } from '@libp2p/gossipsub'
import type { PeerId } from '@libp2p/interface'
import { DEFAULT_GOSSIP_SEEN_TTL_MS, DEFAULT_HELD_BACK_PER_RELAY, REPLAY_LAG_OF_SEEN_TTL } from './constants.js'
import { lastUsed } from './last-used.js'
import { replayWindow } from './replay-window.js'

/** What a topic guard needs from gossipsub: its validators and (optionally) its peer score parameters. */
export interface GuardedPubSub {
  topicValidators: Map<string, TopicValidatorFn>
  score?: { params: { topics: Record<string, unknown> } }
  /** gossipsub's options: how long its seen cache remembers a message sets the replay window (replay-window.ts). */
  opts?: { seenTTL?: number }
}

export interface GuardTopicOptions {
  /** Called for each message dropped as a replay of an old one (ignored before `validate`, not penalized). */
  onReplayed?(): void
}

/** Per-peer token bucket: `ratePerSecond` messages on average, bursts of `burst`. */
export interface RateLimitInit {
  ratePerSecond: number
  burst: number
}

/** Peers with a bucket; past this the one heard from longest ago is forgotten. */
const RATE_MAX_PEERS = 10_000

/** `ok`: within the rate; `over`: above it (drop); `abusive`: far above it, a whole burst beyond (penalize). */
export type RateVerdict = 'ok' | 'over' | 'abusive'

export interface RateLimiter {
  take(peer: string, now?: number): RateVerdict
}

/**
 * A token bucket per peer. A peer that keeps sending while its bucket is empty goes negative down to `-burst`: abusive.
 * The buckets are kept in order of last message, so a flood of fresh keys pushes out the quiet peers (whose buckets
 * would be full again anyway), not the one that is sending, whose empty bucket it would otherwise refill.
 */
export function rateLimiter (init: RateLimitInit): RateLimiter {
  const buckets = lastUsed<{ tokens: number, at: number }>(RATE_MAX_PEERS)
  return {
    take (peer, now = Date.now()) {
      const b = buckets.touch(peer, () => ({ tokens: init.burst, at: now }))
      b.tokens = Math.min(init.burst, b.tokens + (now - b.at) * init.ratePerSecond / 1000)
      b.at = now
      if (b.tokens >= 1) {
        b.tokens -= 1
        return 'ok'
      }
      b.tokens = Math.max(-init.burst, b.tokens - 1)
      return b.tokens <= -init.burst ? 'abusive' : 'over'
    }
  }
}

/** The relays' budgets of held-back messages, one per node (its validators' table). */
const heldBackBudgets = new WeakMap<object, RateLimiter>()

/**
 * How many messages each relay may bring that this node holds back without penalty ({@link DEFAULT_HELD_BACK_PER_RELAY}),
 * one budget per node shared by all its guarded topics (`validators`: the node's gossipsub validators, which identify
 * it). A validator takes a token for each such message it ignores, keyed by the relay (the propagation source), and
 * rejects the message when there is none.
 */
export function heldBackBudget (validators: object): RateLimiter {
  let budget = heldBackBudgets.get(validators)
  if (budget == null) {
    budget = rateLimiter(DEFAULT_HELD_BACK_PER_RELAY)
    heldBackBudgets.set(validators, budget)
  }
  return budget
}

/**
 * Topic score parameters that only count invalid messages: every message a validator rejects costs the sender
 * `-invalidWeight x (rejected so far)^2` (decaying), so a few rejections take it below gossipsub's graylist threshold
 * (-80 by default: its messages are ignored, it is pruned from the mesh and gets no gossip). Mesh delivery
 * penalties stay off: a quiet honest peer is not penalized.
 */
export const INVALID_ONLY_TOPIC_SCORE = {
  topicWeight: 1,
  timeInMeshWeight: 0,
  timeInMeshQuantum: 1_000,
  timeInMeshCap: 1,
  firstMessageDeliveriesWeight: 0,
  firstMessageDeliveriesDecay: 0.5,
  firstMessageDeliveriesCap: 1,
  meshMessageDeliveriesWeight: 0,
  meshMessageDeliveriesDecay: 0.5,
  meshMessageDeliveriesCap: 1,
  meshMessageDeliveriesThreshold: 1,
  meshMessageDeliveriesWindow: 10,
  meshMessageDeliveriesActivation: 5_000,
  meshFailurePenaltyWeight: 0,
  meshFailurePenaltyDecay: 0.5,
  invalidMessageDeliveriesWeight: -100,
  invalidMessageDeliveriesDecay: 0.9
}

export type TopicVerdict = TopicValidatorResult

/**
 * Installs `validate` as the gossipsub validator of `topic` (it runs before a message is delivered or forwarded;
 * `Reject` drops it, never forwards it and counts against the sender's score) and scores the topic so that
 * rejections matter. A signed message older than gossipsub's seen cache remembers (a relay replaying a recorded
 * message of another author) is ignored before `validate` sees it, so it takes nothing of its author's rate
 * (replay-window.ts). Returns the function that removes the validator (the score parameters stay: gossipsub keeps
 * per-topic peer stats that refer to them).
 */
export function guardTopic (pubsub: GuardedPubSub, topic: string,
  validate: (msg: Message, propagationSource: PeerId) => TopicVerdict | Promise<TopicVerdict>,
  options: GuardTopicOptions = {}): () => void {
  const seenTTL = pubsub.opts?.seenTTL ?? DEFAULT_GOSSIP_SEEN_TTL_MS
  const replays = replayWindow({ lagMs: seenTTL * REPLAY_LAG_OF_SEEN_TTL })
  pubsub.topicValidators.set(topic, async (source, msg) => {
    if (msg.type !== 'signed') return await validate(msg, source)
    const author = msg.from.toString()
    if (!replays.fresh(author, msg.sequenceNumber)) {
      options.onReplayed?.()
      return TopicValidatorResult.Ignore
    }
    const verdict = await validate(msg, source)
    if (verdict === TopicValidatorResult.Accept) replays.seen(author, msg.sequenceNumber)
    return verdict
  })
  const topics = pubsub.score?.params.topics
  if (topics != null && topics[topic] == null) topics[topic] = { ...INVALID_ONLY_TOPIC_SCORE }
  return () => {
    pubsub.topicValidators.delete(topic)
  }
}

export { TopicValidatorResult }
