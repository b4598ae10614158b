import { connect, createChainClient, createProvider, deploy, pollUntil, rpcCall } from '../src/index.js'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { Wallet, ZeroHash, id as keccakText } from 'ethers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { workerAnvil } from '@jobmesh/testkit/anvil'
import type { Ed25519PrivateKey } from '@libp2p/interface'
import type { Anvil, ChainClient, ChainEvent, CreateJobInput, Deployment, RegisterResult } from '../src/index.js'

function jobInput (nonce: bigint, deadline: number): CreateJobInput {
  return {
    specCid: 'bafkreispec', nonce, jobRoot: keccakText('root'), seed: 7n, macroJobs: 2, microJobsPerMacro: 3,
    minVramGb: 0, k: 3, deadline, secondsPerMicroJob: 1
  }
}

describe('chain client against anvil', () => {
  let anvil: Anvil
  let deployment: Deployment
  let clients: ChainClient[]

  const client = (i: number): ChainClient => {
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    const c = createChainClient({ provider, signer: new Wallet(anvil.accounts[i].privateKey), deployment }, { pollMs: 50 })
    clients.push(c)
    return c
  }

  beforeEach(async () => {
    clients = []
    anvil = await workerAnvil({ accounts: 4 })
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    deployment = await deploy(new Wallet(anvil.accounts[0].privateKey, provider))
  })
  afterEach(async () => {
    for (const c of clients) c.provider.destroy()
    await anvil.stop()
  })

  it('registers once with the PeerId key\'s proof, tops up stake, and reads node info', async () => {
    const chain = client(1)
    const stake = 10n ** 16n
    const privateKey = await generateKeyPair('Ed25519')
    const peerId = peerIdFromPrivateKey(privateKey).toString()
    // the PeerId must be the key's: another PeerId is refused by the registry, nothing is registered
    const other = peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
    await expect(chain.ensureRegistered({ peerId: other, privateKey, gpuModel: 'RTX 4090', vramGb: 24, stake }))
      .rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'PeerIdKeyMismatch' })
    expect((await chain.nodeInfo()).registered).toBe(false)
    const first = await chain.ensureRegistered({ peerId, privateKey, gpuModel: 'RTX 4090', vramGb: 24, stake })
    expect(first).toEqual({ registered: true, stakeAdded: stake, stake, resumed: false, exiting: false })
    const again = await chain.ensureRegistered({ peerId, privateKey, gpuModel: 'RTX 4090', vramGb: 24, stake })
    expect(again.registered).toBe(false)
    expect(again.stakeAdded).toBe(0n)
    const more = await chain.ensureRegistered({ peerId, privateKey, gpuModel: 'RTX 4090', vramGb: 24, stake: 3n * stake })
    expect(more.stakeAdded).toBe(2n * stake)
    const info = await chain.nodeInfo()
    expect(info.registered).toBe(true)
    expect(info.stake).toBe(3n * stake)
    expect(await chain.peerAddress(peerId)).toBe(await chain.address())
    // a second node (another identity) on the same wallet is refused before any transaction
    const second = await generateKeyPair('Ed25519')
    const nonce = await chain.provider.getTransactionCount(await chain.address())
    await expect(chain.ensureRegistered({ peerId: peerIdFromPrivateKey(second).toString(), privateKey: second, gpuModel: 'cpu', vramGb: 1, stake }))
      .rejects.toMatchObject({ name: 'WalletInUseError' })
    expect(await chain.provider.getTransactionCount(await chain.address())).toBe(nonce)
    // and this node's PeerId (its data dir) started with another wallet's key: refused before any transaction, naming
    // the wallet whose key it needs (until 2026-12-02 the registration was sent, and reverted PeerIdTaken)
    const stranger = client(2)
    const strangerNonce = await stranger.provider.getTransactionCount(await stranger.address())
    const refused = await stranger.ensureRegistered({ peerId, privateKey, gpuModel: 'RTX 4090', vramGb: 24, stake }).catch((err: Error) => err)
    expect(refused).toMatchObject({ name: 'PeerIdInUseError' })
    expect((refused as Error).message).toBe(`PeerId ${peerId} (this data dir's identity) is registered by wallet ${await chain.address()}, not by ` +
      `${await stranger.address()}: start this data dir with ${await chain.address()}'s key (--key-file), or give wallet ${await stranger.address()} a data dir of its own`)
    expect(await stranger.provider.getTransactionCount(await stranger.address())).toBe(strangerNonce)
    expect(await chain.peerAddress('12D3KooWnobody')).toBeUndefined()
  })

  /** Wallet 1's node, registered with `hardware`; `start` is its next start's registration step, `txs` its transaction count. */
  async function registeredNode (hardware: { gpuModel: string, vramGb: number }): Promise<{
    chain: ChainClient, stake: bigint, start(h: { gpuModel: string, vramGb: number }, stake?: bigint): Promise<RegisterResult>, txs(): Promise<number>
  }> {
    const chain = client(1)
    const stake = 10n ** 16n
    const privateKey = await generateKeyPair('Ed25519')
    const peerId = peerIdFromPrivateKey(privateKey).toString()
    await chain.ensureRegistered({ peerId, privateKey, ...hardware, stake })
    return {
      chain,
      stake,
      start: async (h, more = stake) => await chain.ensureRegistered({ peerId, privateKey, ...h, stake: more }),
      txs: async () => await chain.provider.getTransactionCount(await chain.address())
    }
  }

  it('a registered node started with other hardware than the registry holds is refused before any transaction (its profile said 32 GB, the registry drew it as 24)', async () => {
    // registered without --gpu-model ('Any'), stopped cleanly, restarted with --vram 32: neither resumed nor topped up
    const node = await registeredNode({ gpuModel: 'Any', vramGb: 24 })
    await node.chain.pause()
    const nonce = await node.txs()
    await expect(node.start({ gpuModel: 'Any', vramGb: 32 }, 2n * node.stake))
      .rejects.toMatchObject({ name: 'HardwareMismatchError', message: expect.stringContaining('24 GB VRAM (Any), not 32 GB VRAM (Any)') })
    // another model: the registry keeps its hash, and names Any (it said "another GPU model than A100")
    await expect(node.start({ gpuModel: 'A100', vramGb: 24 }))
      .rejects.toMatchObject({ name: 'HardwareMismatchError', message: expect.stringContaining('24 GB VRAM (Any: started without --gpu-model), not 24 GB VRAM (A100)') })
    expect(await node.txs()).toBe(nonce)
    // the registered hardware starts as before
    expect((await node.start({ gpuModel: 'Any', vramGb: 24 })).resumed).toBe(true)
  })

  it('a node that asked to exit starts as it is, on its old hardware or new: not resumed, no stake added, said to be exiting', async () => {
    const node = await registeredNode({ gpuModel: 'cpu', vramGb: 8 })
    // paused by its last stop, then asked to exit: the registry resumes no exiting node (NodeIsExiting)
    await node.chain.pause()
    const registry = connect(deployment, new Wallet(anvil.accounts[1].privateKey, node.chain.provider)).nodeRegistry
    await (await registry.getFunction('requestExit')()).wait()
    const nonce = await node.txs()
    const exiting = { registered: false, stakeAdded: 0n, stake: node.stake, resumed: false, exiting: true }
    expect(await node.start({ gpuModel: 'cpu', vramGb: 8 }, 2n * node.stake)).toEqual(exiting)
    // drawn for nothing and takes no job: it settles and claims on new hardware too (once refused with the advice to
    // exit, which it had done)
    expect(await node.start({ gpuModel: 'cpu', vramGb: 16 })).toEqual(exiting)
    expect(await node.txs()).toBe(nonce)
  })

  it('creates a job, decodes reverts to the custom error name, and watches events by block range', async () => {
    const chain = client(1)
    const ac = new AbortController()
    const seen: ChainEvent[] = []
    const from = await chain.blockNumber()
    const watching = (async () => {
      for await (const e of chain.watchEvents({ fromBlock: from, names: ['JobCreated', 'JobRefunded'], signal: ac.signal })) {
        seen.push(e)
        if (seen.length === 2) ac.abort()
      }
    })()
    const block = await chain.provider.getBlock('latest')
    const deadline = Number(block?.timestamp ?? 0) + 3600
    const created = await chain.createJob(jobInput(1n, deadline), 10_000n)
    expect(created.jobId).toMatch(/^0x[0-9a-f]{64}$/)
    expect(created.jobId).not.toBe(ZeroHash)
    expect(await chain.jobStatus(created.jobId)).toBe('Open')
    const state = await chain.job(created.jobId)
    expect(state.fee).toBe(10_000n)
    expect(state.macroJobs).toBe(2)
    // k = 3 verifiers each re-running 1 of 3 MicroJobs per MacroJob: the fee buys 3 + 3 runs per MacroJob
    expect(await chain.processorPool(created.jobId)).toBe(5_000n)

    // the same job again: JobExists; too small a fee: UnderfundedJob; settle of an Open job: WrongStatus
    await expect(chain.createJob(jobInput(1n, deadline), 10_000n)).rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'JobExists' })
    await expect(chain.createJob(jobInput(2n, deadline), 1n)).rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'UnderfundedJob' })
    await expect(chain.settle(created.jobId)).rejects.toMatchObject({ errorName: 'WrongStatus' })
    // a results commitment by an unregistered node; a submission without a commitment
    await expect(chain.commitResults(created.jobId, keccakText('c'))).rejects.toMatchObject({ errorName: 'NotActiveNode' })
    await expect(chain.submitResults(created.jobId, { resultRoot: keccakText('r'), manifestCid: 'x' }))
      .rejects.toMatchObject({ errorName: 'NoResultCommit' })

    // a second job, refunded after its deadline
    const short = await chain.createJob(jobInput(3n, deadline), 10_000n)
    await expect(chain.refund(short.jobId)).rejects.toMatchObject({ errorName: 'DeadlineNotReached' })
    await chain.provider.send('evm_increaseTime', [7200])
    await chain.refund(short.jobId)
    expect(await chain.jobStatus(short.jobId)).toBe('Refunded')

    await watching
    // the two JobCreated events, not the refund (the watcher stopped after two)
    expect(seen.map(e => e.name)).toEqual(['JobCreated', 'JobCreated'])
    expect(seen[0].args.jobId).toBe(created.jobId)
    const all = await chain.findEvents({ names: ['JobRefunded'], topic1: short.jobId })
    expect(all).toHaveLength(1)
    expect(all[0].args.amount).toBe(10_000n)
  })

  it('sends a transaction that ran out of gas once more with twice the gas (its estimate met a state that changed); twice: OutOfGas, nothing changed', async () => {
    // the estimate sees a cheaper state than the one the transaction is mined in: here it is simply too low
    const stale = (account: number, calls: number): ChainClient => {
      const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
      const estimateGas = provider.estimateGas.bind(provider)
      let n = 0
      provider.estimateGas = async (tx) => (n++ < calls ? 40_000n : await estimateGas(tx))
      const c = createChainClient({ provider, signer: new Wallet(anvil.accounts[account].privateKey), deployment }, { pollMs: 50 })
      clients.push(c)
      return c
    }
    const key = async (): Promise<{ peerId: string, privateKey: Ed25519PrivateKey }> => {
      const privateKey = await generateKeyPair('Ed25519')
      return { peerId: peerIdFromPrivateKey(privateKey).toString(), privateKey }
    }
    const input = { ...await key(), gpuModel: 'RTX 4090', vramGb: 24, stake: 10n ** 16n }
    const once = stale(2, 1)
    const before = await once.provider.getTransactionCount(await once.address())
    expect((await once.ensureRegistered(input)).registered).toBe(true)
    // two transactions: the one that ran out of gas (it changed nothing) and the one sent again
    expect(await once.provider.getTransactionCount(await once.address())).toBe(before + 2)
    expect((await once.nodeInfo()).stake).toBe(10n ** 16n)

    // a registration needs more than twice the stale estimate
    const always = stale(3, Infinity)
    await expect(always.ensureRegistered({ ...input, ...await key() }))
      .rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'OutOfGas' })
    expect((await always.nodeInfo()).registered).toBe(false)
  })

  it('a wallet used by another sender meanwhile (`jobmesh claim` beside a running peer): the next send re-reads the nonce and goes through', async () => {
    const peer = client(1)
    const other = client(1)
    const me = await peer.address()
    const block = await peer.provider.getBlock('latest')
    const deadline = Number(block?.timestamp ?? 0) + 3600
    await peer.createJob(jobInput(1n, deadline), 10_000n)
    // another signer object of the same key, as `jobmesh claim` makes: it takes the nonce the peer keeps as its next
    await other.createJob(jobInput(2n, deadline), 10_000n)
    const before = await peer.provider.getTransactionCount(me)
    const third = await peer.createJob(jobInput(3n, deadline), 10_000n)
    expect((await peer.provider.getTransactionReceipt(third.hash))?.status).toBe(1)
    expect(await peer.provider.getTransactionCount(me)).toBe(before + 1)
    expect(await peer.jobStatus(third.jobId)).toBe('Open')
    // a revert is no nonce failure: it is thrown at once, nothing is sent
    await expect(peer.createJob(jobInput(3n, deadline), 10_000n)).rejects.toMatchObject({ name: 'ChainRevertError', errorName: 'JobExists' })
    expect(await peer.provider.getTransactionCount(me)).toBe(before + 1)
  })

  it('a nonce held by a pending transaction of another sender of the wallet: the send is refused as underpriced, re-reads the nonce and goes through', async () => {
    const peer = client(3)
    const me = await peer.address()
    const block = await peer.provider.getBlock('latest')
    const deadline = Number(block?.timestamp ?? 0) + 3600
    await peer.createJob(jobInput(6n, deadline), 10_000n)
    // a chain that does not mine at once (as Amoy): the other sender's transaction waits in the pool with the nonce
    // the peer keeps as its next
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      const pending = await new Wallet(anvil.accounts[3].privateKey, provider).sendTransaction({ to: me, value: 1n })
      const mined = await peer.provider.getTransactionCount(me)
      let failed: Error | undefined
      const sending = peer.createJob(jobInput(7n, deadline), 10_000n).catch((err: Error) => { failed = err })
      // both wait in the pool: the other's with the kept nonce, the peer's with the next
      await pollUntil(async () => failed !== undefined || (await peer.provider.getTransactionCount(me, 'pending')) === mined + 2 ? true : undefined,
        { pollMs: 20, timeoutMs: 10_000, what: 'both transactions pending' })
      await rpcCall(anvil.rpcUrl, 'evm_mine', [])
      const created = await sending
      expect(failed).toBeUndefined()
      expect((await peer.provider.getTransactionReceipt(pending.hash))?.status).toBe(1)
      expect((await peer.provider.getTransactionReceipt(created?.hash ?? ''))?.status).toBe(1)
      expect(await peer.provider.getTransactionCount(me)).toBe(mined + 2)
    } finally {
      await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true])
      provider.destroy()
    }
  })

  it('a transaction another process of the wallet replaced in the pool (same nonce, higher fee) is seen replaced and sent again, not waited for', async () => {
    // two processes of one wallet (two `jobmesh-dapp submit`s, or `jobmesh claim` beside a peer) read the same pending
    // nonce; anvil, like other nodes, silently drops the first transaction for the second when it pays more
    const provider = createProvider(anvil.rpcUrl, { chainId: anvil.chainId })
    const peer = createChainClient({ provider, signer: new Wallet(anvil.accounts[3].privateKey), deployment }, { pollMs: 50, txTimeoutMs: 15_000 })
    clients.push(peer)
    const me = await peer.address()
    const block = await peer.provider.getBlock('latest')
    const deadline = Number(block?.timestamp ?? 0) + 3600
    await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [false])
    try {
      const mined = await peer.provider.getTransactionCount(me)
      let failed: Error | undefined
      const sending = peer.createJob(jobInput(8n, deadline), 10_000n).catch((err: Error) => { failed = err })
      await pollUntil(async () => failed !== undefined || (await peer.provider.getTransactionCount(me, 'pending')) === mined + 1 ? true : undefined,
        { pollMs: 20, timeoutMs: 10_000, what: 'the job\'s funding pending' })
      // the other process's transaction with the same nonce and a higher fee takes its place, and is mined
      const other = await new Wallet(anvil.accounts[3].privateKey, provider).sendTransaction({
        to: me, value: 1n, nonce: mined, maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 10_000_000_000n
      })
      await rpcCall(anvil.rpcUrl, 'evm_mine', [])
      expect((await peer.provider.getTransactionReceipt(other.hash))?.status).toBe(1)
      await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true])
      // the funding is sent again with the next nonce and mined: the job exists, paid once
      const created = await sending
      expect(failed).toBeUndefined()
      expect((await peer.provider.getTransactionReceipt(created?.hash ?? ''))?.status).toBe(1)
      expect(await peer.jobStatus(created?.jobId ?? '')).toBe('Open')
      expect(await peer.provider.getTransactionCount(me)).toBe(mined + 2)
    } finally {
      await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true])
    }
  })

  it('a send the node refused for its nonce although it holds the transaction (forwarded twice) is not sent again', async () => {
    const chain = client(2)
    const me = await chain.address()
    const block = await chain.provider.getBlock('latest')
    const deadline = Number(block?.timestamp ?? 0) + 3600
    // a proxy that forwards the signed transaction twice and passes on the second answer: anvil's own "nonce too low"
    const broadcast = chain.provider.broadcastTransaction.bind(chain.provider)
    const answers: unknown[] = []
    chain.provider.broadcastTransaction = async (signed) => {
      const first = await broadcast(signed)
      if (answers.length > 0) return first
      return await broadcast(signed).catch((err: unknown) => { answers.push(err); throw err })
    }
    const before = await chain.provider.getTransactionCount(me)
    const created = await chain.createJob(jobInput(4n, deadline), 10_000n)
    expect(answers).toEqual([expect.objectContaining({ code: 'NONCE_EXPIRED' })])
    expect((await chain.provider.getTransactionReceipt(created.hash))?.status).toBe(1)
    expect(await chain.provider.getTransactionCount(me)).toBe(before + 1)
    // and the nonce it keeps is right for the next one
    await chain.createJob(jobInput(5n, deadline), 10_000n)
    expect(await chain.provider.getTransactionCount(me)).toBe(before + 2)
  })

  it('a receipt read that fails (an endpoint\'s 503) is asked again: the transaction is reported mined, sent once', async () => {
    const chain = client(2)
    const me = await chain.address()
    const block = await chain.provider.getBlock('latest')
    const deadline = Number(block?.timestamp ?? 0) + 3600
    const read = chain.provider.getTransactionReceipt.bind(chain.provider)
    let failures = 2
    chain.provider.getTransactionReceipt = async (hash) => {
      if (failures-- > 0) throw Object.assign(new Error('server response 503 Service Unavailable'), { code: 'SERVER_ERROR', response: { statusCode: 503 } })
      return await read(hash)
    }
    const before = await chain.provider.getTransactionCount(me)
    const created = await chain.createJob(jobInput(8n, deadline), 10_000n)
    expect(failures).toBeLessThan(0)
    expect(await chain.jobStatus(created.jobId)).toBe('Open')
    expect(await chain.provider.getTransactionCount(me)).toBe(before + 1)
  })

  it('receipt reads that keep failing: a ChainTimeoutError naming the transaction and the last failed read; the job was funded', async () => {
    const chain = client(2)
    const block = await chain.provider.getBlock('latest')
    const deadline = Number(block?.timestamp ?? 0) + 3600
    chain.provider.getTransactionReceipt = async () => {
      throw Object.assign(new Error('server response 503 Service Unavailable'), { code: 'SERVER_ERROR', response: { statusCode: 503 } })
    }
    const failed = await chain.createJob(jobInput(9n, deadline), 10_000n, { timeoutMs: 1_000 }).then(() => undefined, (err: Error) => err)
    expect(failed).toMatchObject({ name: 'ChainTimeoutError' })
    expect(failed?.message).toMatch(/tx 0x[0-9a-f]{64} not seen mined within 1000 ms \(the last failed read: .*503/)
    const [event] = await chain.findEvents({ names: ['JobCreated'], fromBlock: block?.number ?? 0 })
    expect(event?.name).toBe('JobCreated')
  })

  it('reports an unreachable RPC endpoint with a typed error', async () => {
    const provider = createProvider('http://127.0.0.1:9', { chainId: 31337 })
    const chain = createChainClient({ provider, signer: new Wallet(anvil.accounts[1].privateKey), deployment }, { rpcTimeoutMs: 5_000 })
    clients.push(chain)
    await expect(chain.blockNumber()).rejects.toMatchObject({ name: 'RpcUnreachableError' })
    await expect(chain.jobStatus(ZeroHash)).rejects.toMatchObject({ name: 'RpcUnreachableError' })
    await expect(chain.settle(ZeroHash)).rejects.toMatchObject({ name: 'RpcUnreachableError' })
  })
})
