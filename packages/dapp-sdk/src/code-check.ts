import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { validateJobCode } from '@jobmesh/peer/executor'
import { InvalidCodeError, UploadError } from './errors.js'
import { isContentUri } from './content.js'
import type { ContentInput } from './content.js'

/**
 * Checks a job's code before anything is uploaded or paid: it must be WebAssembly that compiles, import nothing
 * but the function `env.abort` and export `memory`, `alloc` and `process` (the executor's ABI, docs/executor.md;
 * the same check the peers' executor runs). Local code (bytes, a path or a `file://` URL) is checked; code given
 * as a URI is not fetched here (the peers check it when they first run it).
 *
 * @throws InvalidCodeError (with `reason` = the executor's error name), UploadError (unreadable file)
 */
export async function checkCode (input: ContentInput): Promise<void> {
  let bytes: Uint8Array
  if (input instanceof Uint8Array) {
    bytes = input
  } else if (typeof input === 'string' && !isContentUri(input)) {
    const path = input.startsWith('file://') ? fileURLToPath(input) : input
    try {
      bytes = await readFile(path)
    } catch (err) {
      throw new UploadError(`cannot read code ${path}: ${(err as Error).message}`, { cause: err })
    }
  } else {
    return
  }
  try {
    await validateJobCode(bytes)
  } catch (err) {
    const e = err as Error
    throw new InvalidCodeError(e.name, `the job's code is not a valid jobmesh WebAssembly module: ${e.message}`, { cause: err })
  }
}
