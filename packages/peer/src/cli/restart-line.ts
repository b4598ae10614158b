import type { PeerProcess } from '../devnet/index.js'

/**
 * The `jobmesh start` line that starts a devnet peer again as the devnet started it, joining through a peer still
 * running (its first bootstrap may be the one that exited).
 */
export function restartCommand (peer: Pick<PeerProcess, 'dataDir' | 'args'>, running: Array<Pick<PeerProcess, 'addresses'>>): string {
  const args: string[] = []
  for (let i = 0; i < peer.args.length; i++) {
    if (peer.args[i] === '--bootstrap') i++
    else args.push(peer.args[i])
  }
  const via = running.map(p => p.addresses.find(a => /^\/ip[46]\/[^/]+\/tcp\/\d+\/p2p\/[^/]+$/.test(a))).find(a => a !== undefined)
  if (via !== undefined) args.push('--bootstrap', via)
  // npx: `npm ci` puts no jobmesh on the PATH, and the devnet's other lines say `npx jobmesh-dapp`
  return ['npx', 'jobmesh', 'start', '--data-dir', peer.dataDir, ...args].map(shellWord).join(' ')
}

/** `word` as a POSIX shell reads it back: as it is when it holds nothing the shell treats specially, else quoted. */
function shellWord (word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`
}
