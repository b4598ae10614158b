import { guardTopic, heldBackBudget, rateLimiter, TopicValidatorResult } from '../crdt/index.js'
import { decodeMessage } from './codec.js'
import { DEFAULT_COORD_BURST, DEFAULT_COORD_RATE_PER_SECOND } from './constants.js'
import type { CoordMetrics } from './metrics.js'
import type { GuardedPubSub, RateLimiter, RateLimitInit } from '../crdt/index.js'
import type { Message } from '@libp2p/gossipsub'
import type { PeerId } from '@libp2p/interface'

export interface CoordTopicGuardInit {
  maxMessageBytes: number
  metrics: CoordMetrics
  rate?: RateLimitInit
  /**
   * Who may publish on the topic (a job's rooms and `/macro`: registered nodes, `ProcessorInit.mayCoordinate`). A
   * message of anyone else is ignored (neither delivered nor forwarded; no penalty, since a relay that admits an
   * author this peer does not admit yet forwards it in good faith), up to the relay's budget of held-back messages
   * (`heldBackBudget`, over all of this node's topics); past it rejected. Default: anyone.
   */
  author?(peerId: string): Promise<boolean>
}

/** The verdict of one coordination message (exported for unit tests): size, signature policy, protobuf. */
export function judgeCoordMessage (msg: Pick<Message, 'type' | 'data'>, init: Pick<CoordTopicGuardInit, 'maxMessageBytes' | 'metrics'>): TopicValidatorResult {
  if (msg.type !== 'signed') {
    init.metrics.droppedForged++
    return TopicValidatorResult.Reject
  }
  try {
    decodeMessage(msg.data, init.maxMessageBytes)
    return TopicValidatorResult.Accept
  } catch (err) {
    if ((err as Error).name === 'MessageTooLargeError') init.metrics.droppedOversized++
    else init.metrics.droppedMalformed++
    return TopicValidatorResult.Reject
  }
}

/**
 * Validates a coordination topic (`/jobs`, `/macro`, a room) before gossipsub delivers or forwards a message:
 * oversized, unsigned or undecodable messages are rejected (never forwarded, and the sender's score falls); a peer
 * over its rate is ignored, and rejected once it stays a whole burst beyond it; with `author`, a message whose author
 * may not publish here is ignored within its relay's budget (`heldBackBudget`) and rejected past it. A replay of an
 * old message is ignored before all this (`guardTopic`). Returns the function that removes the validator. Without
 * validator support (a bare pubsub) it does nothing.
 */
export function guardCoordTopic (pubsub: Partial<GuardedPubSub>, topic: string, init: CoordTopicGuardInit): () => void {
  if (pubsub.topicValidators == null) return () => {}
  const rate = rateLimiter(init.rate ?? { ratePerSecond: DEFAULT_COORD_RATE_PER_SECOND, burst: DEFAULT_COORD_BURST })
  const guarded = { topicValidators: pubsub.topicValidators, score: pubsub.score, opts: pubsub.opts }
  const relays = heldBackBudget(pubsub.topicValidators)
  return guardTopic(guarded, topic, async (msg, relay) => {
    let verdict: TopicValidatorResult
    const r = msg.type === 'signed' ? rate.take(msg.from.toString()) : 'ok'
    if (r !== 'ok') {
      init.metrics.rateLimited++
      verdict = r === 'abusive' ? TopicValidatorResult.Reject : TopicValidatorResult.Ignore
    } else {
      verdict = judgeCoordMessage(msg, init)
    }
    if (verdict === TopicValidatorResult.Reject) init.metrics.rejected++
    if (verdict !== TopicValidatorResult.Accept || msg.type !== 'signed' || init.author == null) return verdict
    return await admitAuthor(init.author, msg.from.toString(), { relay, relays, metrics: init.metrics })
  }, { onReplayed: () => { init.metrics.droppedReplayed++ } })
}

async function admitAuthor (author: (peerId: string) => Promise<boolean>, from: string,
  context: { relay: PeerId, relays: RateLimiter, metrics: CoordMetrics }): Promise<TopicValidatorResult> {
  // undefined: the check failed (the registry cannot be read): ignored, and no relay is blamed for it
  const ok = await author(from).catch(() => undefined)
  if (ok === true) return TopicValidatorResult.Accept
  context.metrics.droppedUnadmitted++
  if (ok === undefined || context.relays.take(context.relay.toString()) === 'ok') return TopicValidatorResult.Ignore
  context.metrics.rejected++
  return TopicValidatorResult.Reject
}
