import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { ChildProcess } from 'node:child_process'

/** The built `jobmesh-dapp` CLI. */
export const DAPP_BIN = fileURLToPath(new URL('../../packages/dapp-sdk/dist/bundle/jobmesh-dapp.js', import.meta.url))

/** A running CLI process: its lines as they come, and its exit. */
export interface CliProcess {
  child: ChildProcess
  stdout: string[]
  stderr: string[]
  /** Exit code (null when killed by a signal) once it exited. */
  exited: Promise<number | null>
  /** Resolves with the first line (stdout or stderr) matching `re`; rejects if the process exits first or after `timeoutMs`. */
  line(re: RegExp, timeoutMs: number): Promise<string>
}

/** Starts `jobmesh-dapp <args>` (or another CLI: `bin`) with `env` added to this process's environment. */
export function startCli (args: string[], env: Record<string, string> = {}, bin = DAPP_BIN): CliProcess {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
  const stdout: string[] = []
  const stderr: string[] = []
  const waiters: Array<{ re: RegExp, resolve(line: string): void }> = []
  const onLine = (sink: string[]) => (line: string): void => {
    sink.push(line)
    for (const w of [...waiters]) {
      if (w.re.test(line)) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(line)
      }
    }
  }
  createInterface({ input: child.stdout! }).on('line', onLine(stdout))
  createInterface({ input: child.stderr! }).on('line', onLine(stderr))
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  return {
    child,
    stdout,
    stderr,
    exited,
    async line (re, timeoutMs) {
      const seen = [...stdout, ...stderr].find(l => re.test(l))
      if (seen !== undefined) return seen
      return await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => { reject(new Error(`no line matching ${re} within ${timeoutMs} ms:\n${[...stdout, ...stderr].join('\n')}`)) }, timeoutMs)
        waiters.push({ re, resolve: (l) => { clearTimeout(timer); resolve(l) } })
        void exited.then(code => {
          clearTimeout(timer)
          reject(new Error(`exited with ${code} before a line matching ${re}:\n${[...stdout, ...stderr].join('\n')}`))
        })
      })
    }
  }
}

/** Runs `jobmesh-dapp <args>` to its end (killed after `timeoutMs`). */
export async function runCli (args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null, stdout: string[], stderr: string[] }> {
  const p = startCli(args, env)
  const timer = setTimeout(() => { p.child.kill('SIGKILL') }, timeoutMs)
  try {
    const code = await p.exited
    return { code, stdout: p.stdout, stderr: p.stderr }
  } finally {
    clearTimeout(timer)
  }
}
