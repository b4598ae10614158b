import type { PeerProcess } from '../devnet/index.js'

/**
 * The `jobmesh start` line that starts a devnet peer again as the devnet started it, joining through a peer still
 * running (its first bootstrap may be the one that exited), and on the TCP port it listened on: the devnet started it
 * on any port (`/tcp/0`), and on a new one the addresses the devnet printed (`JOBMESH_BOOTSTRAP`, peer-0's, the line
 * that connects another peer) and the other peers' redials reached nobody, as `Devnet.restartPeer` knows.
 */
export function restartCommand (peer: Pick<PeerProcess, 'dataDir' | 'args' | 'addresses'>, running: Array<Pick<PeerProcess, 'addresses'>>): string {
  const args: string[] = []
  for (let i = 0; i < peer.args.length; i++) {
    if (peer.args[i] === '--bootstrap') i++
    else if (peer.args[i] === '--listen' && i + 1 < peer.args.length) args.push('--listen', listenedOn(peer.args[++i], peer.addresses))
    else args.push(peer.args[i])
  }
  const via = running.map(p => p.addresses.find(a => /^\/ip[46]\/[^/]+\/tcp\/\d+\/p2p\/[^/]+$/.test(a))).find(a => a !== undefined)
  if (via !== undefined) args.push('--bootstrap', via)
  // npx: `npm ci` puts no jobmesh on the PATH, and the devnet's other lines say `npx jobmesh-dapp`
  return ['npx', 'jobmesh', 'start', '--data-dir', peer.dataDir, ...args].map(shellWord).join(' ')
}

/**
 * A listen address on any TCP port (`/ip4/<host>/tcp/0...`) with the port the peer listened on for it: the port of
 * its address on that host (any host for an unspecified one, 0.0.0.0 or ::) with the same tail (`/ws`, or none).
 * Any other listen address, or one whose port its addresses do not say, as it is.
 */
function listenedOn (listen: string, addresses: readonly string[]): string {
  const any = /^\/(ip[46])\/([^/]+)\/tcp\/0((?:\/[^/]+)*)$/.exec(listen)
  if (any == null) return listen
  const [, family, host, tail] = any
  for (const a of addresses) {
    const m = /^\/(ip[46])\/([^/]+)\/tcp\/([1-9]\d*)((?:\/[^/]+)*?)(?:\/p2p\/[^/]+)?$/.exec(a)
    if (m != null && m[1] === family && (m[2] === host || UNSPECIFIED.has(host)) && m[4] === tail) return `/${family}/${host}/tcp/${m[3]}${tail}`
  }
  return listen
}

/** The hosts a listen address names to listen on every interface. */
const UNSPECIFIED = new Set(['0.0.0.0', '::'])

/** `word` as a POSIX shell reads it back: as it is when it holds nothing the shell treats specially, else quoted. */
function shellWord (word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`
}
