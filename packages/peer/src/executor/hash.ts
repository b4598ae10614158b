import { createHash } from 'node:crypto'

/** sha256 of `bytes` as a 0x-prefixed lower-case hex string. */
export function sha256Hex (bytes: Uint8Array): string {
  return '0x' + createHash('sha256').update(bytes).digest('hex')
}

/**
 * The output hash of a MicroJob: sha256 of the output bytes (the bytes after the length prefix), 0x-prefixed
 * lower-case hex. This is the `outputHash` leaf value of the result tree (docs/protocol.md).
 */
export function outputHash (output: Uint8Array): string {
  return sha256Hex(output)
}
