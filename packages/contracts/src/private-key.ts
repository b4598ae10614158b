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
