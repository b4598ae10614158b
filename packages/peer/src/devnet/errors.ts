/** A devnet peer process exited or failed to report ready in time. */
export class DevnetPeerError extends Error {
  static override readonly name = 'DevnetPeerError'
  override name = 'DevnetPeerError'
}

/** More peers asked for than the chain has funded accounts for. */
export class TooManyPeersError extends Error {
  static override readonly name = 'TooManyPeersError'
  override name = 'TooManyPeersError'
}
