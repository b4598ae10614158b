// The gossipsub RPCs a peer process receives, by what they carry: every RPC costs its receiver a noise frame, a
// yamux frame and a protobuf decode, whatever it holds. Counted at gossipsub's handler of a decoded RPC (the
// library has no counter of its own without a metrics registry); bench code only.

/** What the RPCs received carried: `rpcs` in all, `control` of them with no message, and entries per kind. */
export function emptyRpcCounts () {
  return { rpcs: 0, control: 0, messages: 0, subscriptions: 0, graft: 0, prune: 0, ihave: 0, iwant: 0, idontwant: 0 }
}

/** Counts the RPCs `pubsub` (a started gossipsub) receives into the returned object, from now on. */
export function countGossipRpcs (pubsub) {
  const counts = emptyRpcCounts()
  const handle = pubsub.handleReceivedRpc.bind(pubsub)
  pubsub.handleReceivedRpc = (from, rpc) => {
    const control = rpc.control ?? {}
    const messages = rpc.messages?.length ?? 0
    counts.rpcs++
    if (messages === 0) counts.control++
    counts.messages += messages
    counts.subscriptions += rpc.subscriptions?.length ?? 0
    for (const kind of ['graft', 'prune', 'ihave', 'iwant', 'idontwant']) counts[kind] += control[kind]?.length ?? 0
    return handle(from, rpc)
  }
  return counts
}
