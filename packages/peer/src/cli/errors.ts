/** A command-line argument is malformed (exit code 2). */
export class UsageError extends Error {
  static override readonly name = 'UsageError'
  override name = 'UsageError'
}

/** `jobmesh status` found no running peer for the data dir. */
export class PeerNotRunningError extends Error {
  static override readonly name = 'PeerNotRunningError'
  override name = 'PeerNotRunningError'
}

/** Another `jobmesh start` already runs on this data dir. */
export class DataDirInUseError extends Error {
  static override readonly name = 'DataDirInUseError'
  override name = 'DataDirInUseError'
}
