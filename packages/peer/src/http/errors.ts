/** `--http` is not `host:port` (or a port). */
export class InvalidHttpAddressError extends Error {
  static override readonly name = 'InvalidHttpAddressError'
  override name = 'InvalidHttpAddressError'
}

/** The dashboard's address cannot be listened on (in use, not this machine's, not allowed); `cause` is the system's error. */
export class HttpListenError extends Error {
  static override readonly name = 'HttpListenError'
  override name = 'HttpListenError'
}
