import { logger } from '@libp2p/logger'
import { isHexString, keccak256 } from 'ethers'
import { NONCE_TAKEN_ATTEMPTS, OUT_OF_GAS_ATTEMPTS, OUT_OF_GAS_USED_PERCENT, REPLACED_ATTEMPTS } from '../constants.js'
import { decodeLog } from './events.js'
import { ChainRevertError, ChainTimeoutError, TransactionReplacedError } from '../errors.js'
import { delay, pollUntil, withTimeout } from './wait.js'
import { isNonceTaken, wrapChainError } from './wrap-error.js'
import type { ChainEvent } from './events.js'
import type { Provider, Signer, TransactionReceipt, TransactionRequest } from 'ethers'

const log = logger('jobmesh:chain')

/** Errors of a receipt read after which the receipt is asked for again: the endpoint failed, not the transaction. */
const RETRIED_READ_ERRORS = new Set(['RpcUnreachableError', 'ChainRequestError', 'ChainTimeoutError'])

/** A transaction in the pool: its hash and the nonce it was sent with. */
interface Sent { hash: string, nonce: number }

/** A mined transaction. */
export interface TxResult {
  hash: string
  blockNumber: number
  gasUsed: bigint
  /** The jobmesh events it emitted. */
  events: ChainEvent[]
  receipt: TransactionReceipt
}

export interface TxOptions {
  signal?: AbortSignal
  /** How long to wait for mining (ms). */
  timeoutMs?: number
}

export interface TxSenderInit {
  rpcTimeoutMs: number
  txTimeoutMs: number
  pollMs: number
  gasMarginBps: number
  confirmations: number
}

/**
 * Sends transactions one at a time per signer with a locally kept nonce: estimate (a revert surfaces here, decoded),
 * send with an explicit nonce and gas limit, then poll for the receipt. A failed send re-reads the nonce; one refused
 * because another sender of the wallet took the nonce is sent again with the new one (never one that entered the pool).
 * One that entered the pool and was replaced there by another of the wallet's (the same nonce with a higher fee, which
 * nodes such as anvil accept silently) is seen by its nonce being used while it has no receipt, and sent again with a
 * fresh nonce: it can never be mined, so nothing is done twice.
 */
export class TxSender {
  private readonly provider: Provider
  private readonly signer: Signer
  private readonly init: TxSenderInit
  private nonce: number | undefined
  private queue: Promise<unknown> = Promise.resolve()
  private address: Promise<string> | undefined

  constructor (provider: Provider, signer: Signer, init: TxSenderInit) {
    this.provider = provider
    this.signer = signer
    this.init = init
  }

  from (): Promise<string> {
    this.address ??= this.signer.getAddress()
    return this.address
  }

  async send (what: string, request: TransactionRequest, options: TxOptions = {}): Promise<TxResult> {
    const from = await this.from()
    const req: TransactionRequest = { ...request, from }
    let floor = 0n
    let outOfGas = 0
    for (let replaced = 0; ;) {
      // after a replacement another sender of the wallet used nonces this one did not count: they are read again
      const sent = await this.sendOnce(what, req, floor, { ...options, freshNonce: replaced > 0 })
      if (sent.receipt === undefined) {
        if (++replaced >= REPLACED_ATTEMPTS) {
          throw new TransactionReplacedError(`${what}: tx ${sent.hash} was replaced by another transaction of ${from} with nonce ${sent.nonce}, ${replaced} times in a row: not done`)
        }
        log('%s: tx %s was replaced by another transaction of the wallet with nonce %d: sending it again', what, sent.hash, sent.nonce)
        continue
      }
      const { receipt, gasLimit } = sent
      if (receipt.status === 1) {
        const events = receipt.logs.map(l => decodeLog(l)).filter((e): e is ChainEvent => e != null)
        return { hash: receipt.hash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, events, receipt }
      }
      const failure = await this.explainFailure(what, req, receipt, gasLimit, options.signal)
      // out of gas: the state the estimate saw changed before the transaction was mined (e.g. a draw that met a
      // full queue); nothing changed on chain, so it is sent once more with twice the gas
      if (failure.errorName !== 'OutOfGas' || ++outOfGas >= OUT_OF_GAS_ATTEMPTS) throw failure
      log('%s ran out of gas (%d) in tx %s: sending again with twice the gas', what, gasLimit, receipt.hash)
      floor = gasLimit * 2n
    }
  }

  /**
   * Estimates, sends with a gas limit of at least `floor`, and waits for the receipt (whatever its status); no receipt
   * when another transaction of the wallet replaced it in the pool.
   */
  private async sendOnce (what: string, req: TransactionRequest, floor: bigint,
    options: TxOptions & { freshNonce: boolean }): Promise<Sent & { receipt?: TransactionReceipt, gasLimit: bigint }> {
    let gas: bigint
    try {
      gas = await withTimeout(this.provider.estimateGas(req), { timeoutMs: this.init.rpcTimeoutMs, what: `${what} (estimate)`, signal: options.signal })
    } catch (err) {
      throw wrapChainError(err, what)
    }
    const estimated = gas * BigInt(this.init.gasMarginBps) / 10_000n
    const gasLimit = estimated > floor ? estimated : floor
    const sent = await this.serial(async () => {
      if (options.freshNonce) this.nonce = undefined
      return await this.sendWithNonce(what, { ...req, gasLimit }, options)
    })
    log('%s sent: %s (nonce %d)', what, sent.hash, sent.nonce)
    return { ...sent, gasLimit, receipt: await this.waitMined(what, sent, req.from as string, options) }
  }

  /**
   * Polls for the receipt of `sent` until the timeout; undefined when another transaction of the wallet took its
   * nonce (the chain's count of the wallet's mined transactions went past it while it has no receipt).
   */
  private async waitMined (what: string, sent: Sent, from: string, options: TxOptions): Promise<TransactionReceipt | undefined> {
    const timeoutMs = options.timeoutMs ?? this.init.txTimeoutMs
    let failedRead: Error | undefined
    try {
      const outcome = await pollUntil(async () => {
        try {
          return await this.minedReceipt(what, sent.hash, options.signal) ?? (await this.replaced(what, sent, from, options.signal) ? 'replaced' : undefined)
        } catch (err) {
          // the transaction is in the pool: a read that failed (an endpoint's 503, a reset connection) says nothing
          // of its outcome, so the receipt is asked for again until the timeout
          const wrapped = wrapChainError(err, what)
          if (!RETRIED_READ_ERRORS.has(wrapped.name)) throw wrapped
          log('%s: reading the receipt of tx %s failed (%s): asking again', what, sent.hash, wrapped.message)
          failedRead = wrapped
          return undefined
        }
      }, { pollMs: this.init.pollMs, timeoutMs, what: `${what} (tx ${sent.hash}) mined`, signal: options.signal })
      return outcome === 'replaced' ? undefined : outcome
    } catch (err) {
      if ((err as Error).name !== 'ChainTimeoutError') throw wrapChainError(err, what)
      const lastRead = failedRead === undefined ? '' : ` (the last failed read: ${failedRead.message})`
      throw new ChainTimeoutError(`${what}: tx ${sent.hash} not seen mined within ${timeoutMs} ms${lastRead}`, { cause: failedRead ?? err })
    }
  }

  /**
   * Whether `sent` was replaced: a transaction of the wallet was mined with its nonce (the mined count is past it) and
   * it has no receipt, read after the count (had it been mined itself, its receipt would be there by then).
   */
  private async replaced (what: string, sent: Sent, from: string, signal?: AbortSignal): Promise<boolean> {
    const mined = await withTimeout(this.provider.getTransactionCount(from, 'latest'), { timeoutMs: this.init.rpcTimeoutMs, what: `${what} (mined nonce)`, signal })
    if (mined <= sent.nonce) return false
    const receipt = await withTimeout(this.provider.getTransactionReceipt(sent.hash), { timeoutMs: this.init.rpcTimeoutMs, what: `${what} (receipt)`, signal })
    return receipt == null
  }

  /** The receipt of `hash` once mined with the confirmations wanted, else undefined. */
  private async minedReceipt (what: string, hash: string, signal?: AbortSignal): Promise<TransactionReceipt | undefined> {
    const r = await withTimeout(this.provider.getTransactionReceipt(hash), { timeoutMs: this.init.rpcTimeoutMs, what: `${what} (receipt)`, signal })
    if (r == null) return undefined
    if (this.init.confirmations > 1) {
      const head = await withTimeout(this.provider.getBlockNumber(), { timeoutMs: this.init.rpcTimeoutMs, what: `${what} (block number)`, signal })
      if (head - r.blockNumber + 1 < this.init.confirmations) return undefined
    }
    return r
  }

  /**
   * Sends `req` with the locally kept nonce (read from the chain's pending count when unknown). A send the node
   * refused because the nonce is taken (another sender of the same wallet used it, e.g. `jobmesh claim` beside a
   * running peer) re-reads the nonce and is sent again, at most {@link NONCE_TAKEN_ATTEMPTS} sends in all. Such a
   * refused transaction did not enter the pool, so nothing is sent twice; should the node know it all the same (a
   * proxy that forwarded it twice and reported the second answer), it is taken as sent. Any other failure clears the
   * nonce and is thrown.
   */
  private async sendWithNonce (what: string, req: TransactionRequest, options: TxOptions): Promise<Sent> {
    for (let attempt = 1; ; attempt++) {
      let nonce: number | undefined
      try {
        this.nonce ??= await withTimeout(this.provider.getTransactionCount(req.from as string, 'pending'), { timeoutMs: this.init.rpcTimeoutMs, what: `${what} (nonce)`, signal: options.signal })
        nonce = this.nonce
        const tx = await withTimeout(this.signer.sendTransaction({ ...req, nonce }), { timeoutMs: this.init.rpcTimeoutMs, what, signal: options.signal })
        this.nonce++
        return { hash: tx.hash, nonce }
      } catch (err) {
        this.nonce = undefined
        if (!isNonceTaken(err)) throw wrapChainError(err, what)
        const known = await this.knownTransaction(what, err, options.signal)
        if (known !== undefined && nonce !== undefined) {
          log('%s: the node refused nonce %d but holds the transaction (%s): taken as sent', what, nonce, known)
          return { hash: known, nonce }
        }
        if (attempt >= NONCE_TAKEN_ATTEMPTS) throw wrapChainError(err, what)
        log('%s: nonce %d is taken (another sender of this wallet used it): re-reading it and sending again', what, nonce)
        if (attempt > 1) await delay(this.init.pollMs, options.signal)
      }
    }
  }

  /** The hash of the signed transaction a refused send carries, when the node knows it (it did enter after all). */
  private async knownTransaction (what: string, err: unknown, signal?: AbortSignal): Promise<string | undefined> {
    const raw = (err as { transaction?: unknown }).transaction
    if (typeof raw !== 'string' || !isHexString(raw)) return undefined
    try {
      const tx = await withTimeout(this.provider.getTransaction(keccak256(raw)), { timeoutMs: this.init.rpcTimeoutMs, what: `${what} (lookup)`, signal })
      return tx?.hash ?? undefined
    } catch (lookup) {
      throw wrapChainError(lookup, what)
    }
  }

  /**
   * A mined but reverted transaction: replays it as a call on the block it was mined in to decode the error. One that
   * used (nearly) all its gas and replays without an error ran out of gas: `errorName` `OutOfGas`.
   */
  private async explainFailure (what: string, req: TransactionRequest, receipt: TransactionReceipt, gasLimit: bigint,
    signal?: AbortSignal): Promise<ChainRevertError> {
    try {
      await withTimeout(this.provider.call({ ...req, blockTag: receipt.blockNumber }), { timeoutMs: this.init.rpcTimeoutMs, what: `${what} (replay)`, signal: signal })
    } catch (err) {
      const wrapped = wrapChainError(err, what)
      if (wrapped instanceof ChainRevertError) return wrapped
    }
    if (receipt.gasUsed * 100n >= gasLimit * OUT_OF_GAS_USED_PERCENT) {
      return new ChainRevertError(`${what} ran out of gas (limit ${gasLimit}) in tx ${receipt.hash}`, 'OutOfGas')
    }
    return new ChainRevertError(`${what} reverted in tx ${receipt.hash}`, 'UnknownRevert')
  }

  private serial<T> (fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => {})
    return run
  }
}
