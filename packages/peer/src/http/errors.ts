/** `--http` is not `host:port` (or a port). */
export class InvalidHttpAddressError extends Error {
  static override readonly name = 'InvalidHttpAddressError'
  override name = 'InvalidHttpAddressError'
}
