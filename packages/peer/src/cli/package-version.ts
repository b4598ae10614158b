import { readFileSync } from 'node:fs'

/**
 * The `version` of the package.json at `manifest` (a file URL), for a CLI's `--version`; `unknown` when it cannot be
 * read (a bundled copy without its manifest).
 */
export function packageVersion (manifest: URL): string {
  try {
    const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }).version
    return typeof version === 'string' ? version : 'unknown'
  } catch {
    return 'unknown'
  }
}
