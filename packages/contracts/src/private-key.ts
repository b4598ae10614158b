const HEX_KEY = /^(0x)?[0-9a-fA-F]{64}$/

/**
 * A wallet's private key as people write it (a key file's text, JOBMESH_PRIVATE_KEY): 64 hex digits, with or
 * without `0x`, whitespace around it ignored. Returns the `0x` form, or undefined when `text` is not one.
 */
export function privateKeyHex (text: string): string | undefined {
  const key = text.trim()
  if (!HEX_KEY.test(key)) return undefined
  return key.startsWith('0x') ? key : `0x${key}`
}

/**
 * What a key {@link privateKeyHex} refuses is told, by where it came from: the key file at `keyFile`, or (without one)
 * the key given in JOBMESH_PRIVATE_KEY or `--private-key`.
 */
export function badPrivateKeyMessage (keyFile?: string): string {
  const source = keyFile != null ? `the key file ${keyFile} does not hold` : 'the private key given (JOBMESH_PRIVATE_KEY or --private-key) is not'
  return `${source} 32 bytes of hex (64 hex digits, 0x optional)`
}
