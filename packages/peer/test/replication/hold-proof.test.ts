import { patternBytes } from '@jobmesh/testkit'
import { CID } from 'multiformats/cid'
import { afterEach, describe, expect, it } from 'vitest'
import { createNode } from '../../src/node/index.js'
import { holdChecks, proveHolding, startHoldProofServer } from '../../src/replication/index.js'
import { decodeChallenge, decodeProofAnswer, encodeChallenge, encodeProofAnswer } from '../../src/replication/hold-proof-wire.js'
import { createContentStore, dagBlocks } from '../../src/storage/index.js'
import type { JobmeshNode } from '../../src/node/index.js'
import type { HoldProofServer } from '../../src/replication/index.js'

const nodes: JobmeshNode[] = []
const servers: HoldProofServer[] = []

async function node (): Promise<JobmeshNode> {
  const n = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'] })
  nodes.push(n)
  return n
}

async function connect (a: JobmeshNode, b: JobmeshNode): Promise<void> {
  await a.libp2p.dial(b.libp2p.getMultiaddrs()[0], { signal: AbortSignal.timeout(10_000) })
}

/** A client with 2.5 MB uploaded (a UnixFS root and its leaves): the CIDs of all its blocks. */
async function uploaded (client: JobmeshNode): Promise<{ root: CID, blocks: CID[] }> {
  const root = CID.parse(await createContentStore({ helia: client.helia }).addBytes(patternBytes(2_500_000, 5)))
  return { root, blocks: await dagBlocks(client.helia, root) }
}

/** What a challenger gives `proveHolding`: its node, withholding as it does (or, `withhold: false`, not at all). */
function challenger (client: JobmeshNode, options: { withhold?: boolean } = {}): Parameters<typeof proveHolding>[0] {
  return {
    libp2p: client.libp2p,
    blockstore: client.helia.blockstore,
    withhold: options.withhold === false ? () => () => {} : client.withhold
  }
}

afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop()
  for (const n of nodes.splice(0)) await n.stop()
})

describe('hold proofs', () => {
  it('lists every stored block of a DAG from this node alone, and fails on a block it lacks', async () => {
    const client = await node()
    const { root, blocks } = await uploaded(client)
    expect(blocks.length).toBeGreaterThan(2)
    expect(blocks[0].equals(root)).toBe(true)
    for (const cid of blocks) expect(await client.helia.blockstore.has(cid)).toBe(true)
    const other = await node()
    await connect(other, client)
    // offline: the block is not fetched from the connected client
    const err = await dagBlocks(other.helia, root, { signal: AbortSignal.timeout(10_000) }).catch((e: Error) => e)
    expect((err as Error).name).toBe('BlockNotFoundWhileOfflineError')
    expect(await other.helia.blockstore.has(root)).toBe(false)
  })

  it('a holder that pinned the content proves every block; one that holds nothing fails, block by block', async () => {
    const client = await node()
    const { root, blocks } = await uploaded(client)
    const holder = await node()
    servers.push(await startHoldProofServer({ libp2p: holder.libp2p, blockstore: holder.helia.blockstore }))
    const empty = await node()
    servers.push(await startHoldProofServer({ libp2p: empty.libp2p, blockstore: empty.helia.blockstore }))
    await connect(client, holder)
    await connect(client, empty)
    await createContentStore({ helia: holder.helia }).pin(`ipfs://${root}`, { signal: AbortSignal.timeout(20_000) })
    await proveHolding(challenger(client), holder.peerId, blocks, { signal: AbortSignal.timeout(20_000) })
    const err = await proveHolding(challenger(client), empty.peerId, blocks, { signal: AbortSignal.timeout(20_000) }).catch((e: Error) => e)
    expect((err as Error).name).toBe('HoldProofFailedError')
    expect((err as Error).message).toBe(`${empty.peerId.toString()} did not prove ${blocks.length} of ${blocks.length} blocks it said it holds`)
    // answering a challenge fetched nothing
    expect(await empty.helia.blockstore.has(root)).toBe(false)
  })

  it('a liar that fetches the challenged blocks on demand fails: the challenger withholds them while it answers', async () => {
    const client = await node()
    const { blocks } = await uploaded(client)
    const liar = await node()
    // the liar holds nothing and answers each challenge by fetching the blocks from whoever has them (the client)
    const fetching = { get: (cid: CID, o?: { signal?: AbortSignal }) => liar.helia.blockstore.get(cid, { signal: o?.signal }) }
    servers.push(await startHoldProofServer({ libp2p: liar.libp2p, blockstore: fetching }))
    await connect(client, liar)
    // without the withholding it would pass: it fetched the blocks while it answered
    await proveHolding(challenger(client, { withhold: false }), liar.peerId, blocks.slice(0, 2), { signal: AbortSignal.timeout(20_000) })
    expect(await liar.helia.blockstore.has(blocks[1])).toBe(true)
    const err = await proveHolding(challenger(client), liar.peerId, blocks.slice(2), { timeoutMs: 3_000, signal: AbortSignal.timeout(20_000) })
      .catch((e: Error) => e)
    expect((err as Error).name).toBe('HoldProofFailedError')
    expect((err as Error).message).toBe(`${liar.peerId.toString()} did not answer a challenge over ${blocks.length - 2} blocks within 3000 ms`)
    // released: the client reads and serves them again
    for (const cid of blocks.slice(2)) expect(await client.helia.blockstore.has(cid)).toBe(true)
  })

  it('a finalization asked again challenges a liar once: its failure stands for the same key, blocks listed once', async () => {
    const client = await node()
    const { root, blocks } = await uploaded(client)
    const liar = await node()
    let challenged = 0
    // answers every challenge with digests of nothing: wrong at once (no stall)
    servers.push(await startHoldProofServer({
      libp2p: liar.libp2p,
      blockstore: { get: async function * () { challenged++; yield new Uint8Array(0) } }
    }))
    await connect(client, liar)
    const checks = holdChecks(client)
    const first = await checks('manifest-1', [root.toString()])(liar.peerId.toString(), { signal: AbortSignal.timeout(20_000) }).catch((e: Error) => e)
    expect((first as Error).name).toBe('HoldProofFailedError')
    const answered = challenged
    expect(answered).toBe(Math.min(8, blocks.length))
    const again = await checks('manifest-1', [root.toString()])(liar.peerId.toString(), { signal: AbortSignal.timeout(20_000) }).catch((e: Error) => e)
    expect(again).toBe(first)
    expect(challenged).toBe(answered)
    // another manifest is another check
    await checks('manifest-2', [root.toString()])(liar.peerId.toString(), { signal: AbortSignal.timeout(20_000) }).catch(() => {})
    expect(challenged).toBe(2 * answered)
  })

  it('refuses malformed challenges and answers with typed errors', () => {
    const bad = (v: unknown): string => {
      try {
        decodeChallenge(new TextEncoder().encode(JSON.stringify(v)))
        return 'accepted'
      } catch (err) {
        return `${(err as Error).name}: ${(err as Error).message}`
      }
    }
    const cid = 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku'
    expect(bad({ nonce: '0x12', cids: [cid] })).toBe('ReplicationProtocolError: nonce is not 32 bytes of hex')
    expect(bad({ nonce: `0x${'ab'.repeat(32)}`, cids: [] })).toBe('ReplicationProtocolError: cids is not a list of 1 to 16 CIDs')
    expect(bad({ nonce: `0x${'ab'.repeat(32)}`, cids: Array(17).fill(cid) })).toBe('ReplicationProtocolError: cids is not a list of 1 to 16 CIDs')
    expect(bad({ nonce: `0x${'ab'.repeat(32)}`, cids: ['not-a-cid'] })).toBe('ReplicationProtocolError: malformed CID not-a-cid')
    expect(bad([1])).toBe('ReplicationProtocolError: message is not an object')
    const ok = decodeChallenge(encodeChallenge({ nonce: `0x${'ab'.repeat(32)}`, cids: [CID.parse(cid)] }))
    expect(ok.cids[0].toString()).toBe(cid)
    const answer = encodeProofAnswer({ proofs: [null] })
    expect(() => decodeProofAnswer(answer, 2)).toThrow('proofs is not a list of 2 entries')
    expect(() => decodeProofAnswer(encodeProofAnswer({ proofs: ['0x1'] }), 1)).toThrow('a proof is not 32 bytes of hex or null')
    expect(decodeProofAnswer(answer, 1)).toEqual({ proofs: [null] })
  })
})
