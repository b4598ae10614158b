import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { CLI_BIN } from '../../src/devnet/index.js'

/** How a `jobmesh` process ended: its exit code and what it printed. */
export interface Outcome { code: number, stdout: string, stderr: string }

const execute = promisify(execFile)

/**
 * `jobmesh <args>` to its end (a failing exit is a result, not an error), without the caller's chain, wallet and data
 * dir variables unless `env` sets them.
 */
export async function jobmesh (args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 60_000): Promise<Outcome> {
  const clean = { JOBMESH_DATA_DIR: undefined, JOBMESH_RPC_URL: '', JOBMESH_PRIVATE_KEY: '' }
  return await execute(process.execPath, [CLI_BIN, ...args], { timeout: timeoutMs, env: { ...process.env, ...clean, ...env } })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (err: Outcome) => err)
}
