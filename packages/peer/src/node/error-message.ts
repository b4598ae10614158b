/** The message of a caught value, for wrapping it into a typed error. */
export function errorMessage (err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** The Node.js error code (`ENOENT`...) of a caught value, if any. */
export function errorCode (err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}
