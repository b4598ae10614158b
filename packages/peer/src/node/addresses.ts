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

/** Parses bootstrap addresses; each must name its peer (`.../p2p/<peerId>`). */
export function parseBootstrap (addrs: readonly string[]): string[] {
  for (const a of addrs) {
    const ma = parse(a, 'bootstrap')
    if (ma.getComponents().find(c => c.name === 'p2p') == null) {
      throw new InvalidMultiaddrError(`bootstrap address ${a} lacks /p2p/<peerId>`)
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
