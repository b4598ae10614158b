import { peerIdFromString } from '@libp2p/peer-id'
import { multiaddr } from '@multiformats/multiaddr'
import { errorMessage } from './error-message.js'
import { InvalidMultiaddrError } from './errors.js'
import type { Multiaddr } from '@multiformats/multiaddr'

/** Parses listen addresses, throwing {@link InvalidMultiaddrError} on the first bad one. */
export function parseListen (addrs: readonly string[]): string[] {
  for (const a of addrs) {
    parse(a, 'listen')
  }
  return [...addrs]
}

/**
 * Parses bootstrap addresses; each must name its peer (`.../p2p/<peerId>`) by a peer id: a `/p2p/` part that is not
 * one parses as a multiaddr, and failed only when libp2p dialled it ("Incorrect length", "Please pass a multibase
 * decoder ...").
 */
export function parseBootstrap (addrs: readonly string[]): string[] {
  for (const a of addrs) {
    const peers = parse(a, 'bootstrap').getComponents().filter(c => c.name === 'p2p')
    if (peers.length === 0) {
      throw new InvalidMultiaddrError(`bootstrap address ${a} lacks /p2p/<peerId>`)
    }
    for (const { value } of peers) {
      try {
        peerIdFromString(value ?? '')
      } catch {
        throw new InvalidMultiaddrError(`bootstrap address ${a}: its /p2p part ${JSON.stringify(value ?? '')} is not a peer id (example: /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW...)`)
      }
    }
  }
  return [...addrs]
}

function parse (a: string, what: string): Multiaddr {
  try {
    return multiaddr(a)
  } catch (err) {
    throw new InvalidMultiaddrError(`bad ${what} multiaddr ${JSON.stringify(a)}: ${errorMessage(err)}`)
  }
}
