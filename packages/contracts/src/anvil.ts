import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import {
  ANVIL_CHAIN_ID,
  DEFAULT_ANVIL_ACCOUNTS,
  DEFAULT_ANVIL_BALANCE,
  DEFAULT_ANVIL_HISTORY_STATES,
  DEFAULT_ANVIL_START_TIMEOUT,
  DEFAULT_ANVIL_STOP_TIMEOUT
} from './constants.js'
import { AbortError, AnvilNotFoundError, AnvilStartError } from './errors.js'
import type { ChildProcess } from 'node:child_process'

/** A funded dev account of a local anvil chain. */
export interface AnvilAccount {
  /** Checksummed address, as anvil prints it. */
  address: string
  /** 0x-prefixed private key. */
  privateKey: string
}

/** Options of {@link startAnvil}. */
export interface AnvilInit {
  /** Chain id (default 31337). */
  chainId?: number
  /** Seconds between blocks; omitted = automine (a block per transaction). */
  blockTime?: number
  /** Number of funded dev accounts (default 10). */
  accounts?: number
  /** Balance of every dev account in ether (default 10 000). */
  balance?: number
  /** Interface to listen on (default 127.0.0.1). */
  host?: string
  /** Lift the block gas limit (for benchmarks that put very large transactions on chain). */
  disableBlockGasLimit?: boolean
  /**
   * How many past block states anvil keeps, in memory only (default 256). Calls at older blocks fail.
   * Without this bound anvil writes every older state to `~/.foundry/anvil/tmp` and never removes it when
   * stopped: a long devnet or a test run filled the disk.
   */
  historyStates?: number
  /** Further command-line arguments, passed as is. */
  args?: string[]
  /** How long to wait for anvil to listen, in ms (default 15 000). */
  startTimeout?: number
  /** Aborts the start (anvil is killed). Aborting after the start has no effect: call `stop()`. */
  signal?: AbortSignal
}

/** How an anvil process ended: its exit code, or the signal that killed it. */
export interface AnvilExit {
  code: number | null
  signal: NodeJS.Signals | null
}

/** A running anvil chain. */
export interface Anvil {
  /** `http://host:port` of its JSON-RPC endpoint. */
  readonly rpcUrl: string
  /** The port it listens on (chosen by the OS). */
  readonly port: number
  readonly chainId: number
  /** The funded dev accounts, in anvil's order. */
  readonly accounts: readonly AnvilAccount[]
  /** The child process id. */
  readonly pid: number
  /**
   * Resolves when anvil has exited, whoever ended it (`stop()`, a signal, a crash); never rejects. (A test pool's lent
   * anvil, @jobmesh/testkit/anvil: when the test gives it back.)
   */
  readonly exited: Promise<AnvilExit>
  /** Kills anvil (SIGTERM, then SIGKILL after a timeout) and resolves once it has exited. Idempotent. */
  stop(): Promise<void>
}

const require = createRequire(import.meta.url)

/** Path of the anvil executable shipped by `@foundry-rs/anvil` for this platform (`ANVIL_BIN` overrides). */
export function anvilBinaryPath (): string {
  const fromEnv = process.env.ANVIL_BIN
  if (fromEnv != null && fromEnv !== '') return fromEnv
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil'
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`
  const tried: string[] = []
  try {
    // The platform package is an optional dependency of @foundry-rs/anvil: resolve it from there.
    const wrapper = require.resolve('@foundry-rs/anvil/package.json')
    const candidate = createRequire(wrapper).resolve(`${platformPackage}/bin/${exe}`)
    if (existsSync(candidate)) return candidate
    tried.push(candidate)
  } catch (err) {
    tried.push(`${platformPackage} (${(err as Error).message.split('\n')[0]})`)
  }
  try {
    const fallback = path.join(path.dirname(require.resolve('@foundry-rs/anvil/package.json')), 'dist', exe)
    if (existsSync(fallback)) return fallback
    tried.push(fallback)
  } catch {
    // @foundry-rs/anvil itself is missing
  }
  throw new AnvilNotFoundError(`anvil binary not found; is @foundry-rs/anvil installed? tried: ${tried.join(', ')}`)
}

// Every anvil this process started and has not stopped yet: killed when the process exits or is
// interrupted, so tests and scripts never leave orphans behind.
const live = new Set<ChildProcess>()
let hooksInstalled = false

function killAll (): void {
  for (const child of live) {
    try { child.kill('SIGKILL') } catch { /* already gone */ }
  }
  live.clear()
}

function onSignal (signal: NodeJS.Signals): void {
  killAll()
  // Restore the default behaviour if nobody else handles the signal.
  process.off('SIGINT', onSignal)
  process.off('SIGTERM', onSignal)
  hooksInstalled = false
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
}

function track (child: ChildProcess): void {
  live.add(child)
  child.once('exit', () => live.delete(child))
  if (!hooksInstalled) {
    hooksInstalled = true
    process.on('exit', killAll)
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  }
}

function untrackHooksIfIdle (): void {
  if (live.size === 0 && hooksInstalled) {
    hooksInstalled = false
    process.off('exit', killAll)
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

/** Parses anvil's banner: its dev accounts and keys, and the `Listening on host:port` line. */
export function parseAnvilBanner (text: string): { accounts: AnvilAccount[], host?: string, port?: number } {
  const addresses: string[] = []
  const keys: string[] = []
  let section: 'none' | 'accounts' | 'keys' = 'none'
  let host: string | undefined
  let port: number | undefined
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('Available Accounts')) section = 'accounts'
    else if (line.startsWith('Private Keys')) section = 'keys'
    else if (/^(Wallet|Chain ID|Base Fee|Gas Limit)/.test(line)) section = 'none'
    const entry = /^\((\d+)\)\s+(0x[0-9a-fA-F]+)/.exec(line)
    if (entry != null) {
      if (section === 'accounts') addresses[Number(entry[1])] = entry[2]
      else if (section === 'keys') keys[Number(entry[1])] = entry[2]
    }
    const listening = /^Listening on (.+):(\d+)\s*$/.exec(line)
    if (listening != null) {
      host = listening[1]
      port = Number(listening[2])
    }
  }
  const accounts = keys.map((privateKey, i) => ({ address: addresses[i] ?? '', privateKey }))
  return port === undefined ? { accounts } : { accounts, host, port }
}

function waitForExit (child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => { child.off('exit', onExit); resolve(false) }, ms)
    const onExit = (): void => { clearTimeout(timer); resolve(true) }
    child.once('exit', onExit)
  })
}

/**
 * Starts a local anvil chain on a free port (`--port 0`) and resolves once it listens.
 *
 * @example
 * ```ts
 * const anvil = await startAnvil({ accounts: 5 })
 * const provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 })
 * // ...
 * await anvil.stop()
 * ```
 * @throws AnvilNotFoundError, AnvilStartError (exited early or timed out), AbortError
 */
export async function startAnvil (init: AnvilInit = {}): Promise<Anvil> {
  init.signal?.throwIfAborted()
  const chainId = init.chainId ?? ANVIL_CHAIN_ID
  const args = [
    '--port', '0',
    '--host', init.host ?? '127.0.0.1',
    '--chain-id', String(chainId),
    '--accounts', String(init.accounts ?? DEFAULT_ANVIL_ACCOUNTS),
    '--balance', String(init.balance ?? DEFAULT_ANVIL_BALANCE),
    '--color', 'never'
  ]
  // the caller's own `--prune-history` in `args` wins (anvil refuses the flag twice)
  if (init.args?.includes('--prune-history') !== true) args.push('--prune-history', String(init.historyStates ?? DEFAULT_ANVIL_HISTORY_STATES))
  if (init.blockTime !== undefined) args.push('--block-time', String(init.blockTime))
  if (init.disableBlockGasLimit === true) args.push('--disable-block-gas-limit')
  args.push(...(init.args ?? []))

  const bin = anvilBinaryPath()
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  track(child)
  const exited = new Promise<AnvilExit>(resolve => {
    child.once('exit', (code, signal) => { resolve({ code, signal }) })
  })

  // The banner is kept until anvil listens; after that output is drained (anvil logs every RPC call,
  // and a full pipe would block it) and only the tail is kept for error messages.
  let banner = ''
  let tail = ''
  let listening = false
  const onData = (chunk: Buffer): void => {
    const s = chunk.toString('utf8')
    if (!listening) banner += s
    tail = (tail + s).slice(-4096)
  }
  child.stdout?.on('data', onData)
  child.stderr?.on('data', onData)

  const timeoutMs = init.startTimeout ?? DEFAULT_ANVIL_START_TIMEOUT
  let parsed: ReturnType<typeof parseAnvilBanner>
  try {
    parsed = await new Promise((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer)
        child.stdout?.off('data', check)
        child.off('exit', onExit)
        child.off('error', onError)
        init.signal?.removeEventListener('abort', onAbort)
      }
      const check = (): void => {
        const p = parseAnvilBanner(banner)
        if (p.port !== undefined) { cleanup(); resolve(p) }
      }
      const onExit = (code: number | null, sig: string | null): void => {
        cleanup()
        reject(new AnvilStartError(`anvil exited before listening (code ${code}, signal ${sig}): ${tail.trim().slice(-1000)}`))
      }
      const onError = (err: Error): void => {
        cleanup()
        reject(new AnvilStartError(`cannot run ${bin}: ${err.message}`, { cause: err }))
      }
      const onAbort = (): void => { cleanup(); reject(new AbortError('startAnvil aborted')) }
      const timer = setTimeout(() => {
        cleanup()
        reject(new AnvilStartError(`anvil did not listen within ${timeoutMs} ms: ${tail.trim().slice(-1000)}`))
      }, timeoutMs)
      child.stdout?.on('data', check)
      child.once('exit', onExit)
      child.once('error', onError)
      init.signal?.addEventListener('abort', onAbort, { once: true })
    })
  } catch (err) {
    child.kill('SIGKILL')
    await waitForExit(child, DEFAULT_ANVIL_STOP_TIMEOUT)
    untrackHooksIfIdle()
    throw err
  }
  listening = true
  banner = ''

  const host = parsed.host === '0.0.0.0' || parsed.host === undefined ? '127.0.0.1' : parsed.host
  const port = parsed.port as number
  let stopping: Promise<void> | undefined

  return {
    rpcUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    chainId,
    accounts: parsed.accounts,
    pid: child.pid ?? -1,
    exited,
    stop: async (): Promise<void> => {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM')
          if (!(await waitForExit(child, DEFAULT_ANVIL_STOP_TIMEOUT))) {
            child.kill('SIGKILL')
            await waitForExit(child, DEFAULT_ANVIL_STOP_TIMEOUT)
          }
        }
        live.delete(child)
        untrackHooksIfIdle()
      })()
      return stopping
    }
  }
}
