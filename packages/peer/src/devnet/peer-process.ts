import { anySignal } from '@jobmesh/contracts'
import { raceSignal } from 'race-signal'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { logger } from '@libp2p/logger'
import { DEFAULT_PEER_START_TIMEOUT_MS, DEFAULT_PEER_STOP_TIMEOUT_MS, MAX_PEER_OUTPUT_LINES } from './constants.js'
import { DevnetPeerError } from './errors.js'
import type { ChildProcess } from 'node:child_process'

const log = logger('jobmesh:devnet')

/** The `jobmesh` CLI of the built package, its bundle (the same path from `src/devnet`, `dist/devnet` and `dist/bundle`). */
export const CLI_BIN = fileURLToPath(new URL('../../dist/bundle/jobmesh.js', import.meta.url))

/** The variables `jobmesh devnet` prints for DApps, which both CLIs read. */
export const CONNECT_VARIABLES = ['JOBMESH_RPC_URL', 'JOBMESH_DEPLOYMENT', 'JOBMESH_BOOTSTRAP', 'JOBMESH_PRIVATE_KEY'] as const

/** A `jobmesh start` child process. */
export interface PeerProcess {
  readonly name: string
  readonly peerId: string
  readonly addresses: string[]
  readonly dataDir: string
  /** The options of its `jobmesh start` after `--data-dir` (its key file, chain, bootstrap peers, listen address). */
  readonly args: readonly string[]
  /** The dashboard's URL when the peer runs with `--http`. */
  readonly dashboardUrl?: string
  readonly child: ChildProcess
  /** Resolves when the process has exited. */
  readonly exited: Promise<number | null>
  /** Lines the process printed (stdout and stderr), newest last: the last {@link MAX_PEER_OUTPUT_LINES} or so. */
  readonly output: string[]
  /** SIGTERM, then SIGKILL after a timeout; resolves when it has exited. */
  stop(): Promise<void>
  /** Sends a signal without waiting (SIGKILL for fault tests). */
  kill(signal: NodeJS.Signals): void
}

export interface SpawnPeerInit {
  name: string
  dataDir: string
  args: string[]
  /** A program to run instead of the CLI, and its arguments before `start`. */
  entry?: { path: string, args?: string[] }
  env?: NodeJS.ProcessEnv
  startTimeoutMs?: number
  signal?: AbortSignal
}

/**
 * Starts `jobmesh start <args> --exit-with-parent` and resolves once it printed "ready" with its PeerId and listen
 * addresses. Standard input is a pipe from this process, so the child stops when this process dies, even by SIGKILL.
 */
export async function spawnPeer (init: SpawnPeerInit): Promise<PeerProcess> {
  // the devnet passes every setting as a flag: variables a user exported for the DApp (jobmesh devnet prints them)
  // must not reach its peers (the first peer has no bootstrap, and each has its own wallet)
  const env: NodeJS.ProcessEnv = { ...process.env, ...init.env }
  for (const name of CONNECT_VARIABLES) if (init.env?.[name] === undefined) delete env[name]
  const program = init.entry == null ? [CLI_BIN] : [init.entry.path, ...init.entry.args ?? []]
  const child = spawn(process.execPath, [...program, 'start', '--data-dir', init.dataDir, ...init.args, '--exit-with-parent'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env
  })
  const output: string[] = []
  // the lines a devnet keeps of each peer: a devnet runs for days, and kept them all (its memory grew with every line)
  const keep = (line: string): void => {
    output.push(line)
    if (output.length > MAX_PEER_OUTPUT_LINES + 1_000) output.splice(0, output.length - MAX_PEER_OUTPUT_LINES)
  }
  let peerId = ''
  const addresses: string[] = []
  let dashboardUrl: string | undefined
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  const ready = new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    lines.on('line', line => {
      keep(line)
      log('%s: %s', init.name, line)
      const [key, value] = line.split(/\s+/, 2)
      if (key === 'peer' && line.startsWith('peer id')) peerId = line.split(/\s+/)[2]
      else if (key === 'listening') addresses.push(value)
      else if (key === 'dashboard') dashboardUrl = value
      else if (line.startsWith('ready')) resolve()
    })
    createInterface({ input: child.stderr! }).on('line', keep)
    void exited.then(code => { reject(new DevnetPeerError(`${init.name} exited with ${code} before it was ready:\n${output.slice(-10).join('\n')}`)) })
  })
  const timeoutMs = init.startTimeoutMs ?? DEFAULT_PEER_START_TIMEOUT_MS
  const signal = anySignal([init.signal], timeoutMs)
  try {
    await raceSignal(ready, signal, { translateError: () => new DevnetPeerError(`${init.name} did not start within ${timeoutMs} ms:\n${output.slice(-10).join('\n')}`) })
  } catch (err) {
    child.kill('SIGKILL')
    await exited
    throw err
  }
  return {
    name: init.name,
    peerId,
    addresses,
    dataDir: init.dataDir,
    args: init.args,
    dashboardUrl,
    child,
    exited,
    output,
    kill: signal => { child.kill(signal) },
    stop: async () => { await stopChild(child, exited) }
  }
}

async function stopChild (child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode != null || child.signalCode != null) {
    return
  }
  child.kill('SIGTERM')
  const timer = setTimeout(() => { child.kill('SIGKILL') }, DEFAULT_PEER_STOP_TIMEOUT_MS)
  try {
    await exited
  } finally {
    clearTimeout(timer)
  }
}
