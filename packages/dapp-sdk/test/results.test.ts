import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { docsOfJob } from '@jobmesh/peer/crdt'
import { resultTree } from '@jobmesh/peer/protocol'
import { encodeManifest, resultCommitment } from '@jobmesh/peer/settlement'
import { keccak256 } from 'ethers'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'
import { afterEach, describe, expect, it } from 'vitest'
import { run } from '../src/cli/program.js'
import { SLICING, cleanup, connectFlags, processorDocs, registerNode, setup, smallJob } from './helpers.js'
import type { ProgressUpdate } from '../src/index.js'

afterEach(cleanup)

const digest = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest())

describe('progress and results', () => {
  it('follows progress, downloads verified outputs in order and detects a tampered output', async () => {
    const env = await setup()
    const job = await env.client.submit({ ...smallJob(), blockSize: 4, slicing: SLICING, price: 10n ** 15n, verifiers: 3 })

    // the network peer plays the processors: outputs in its blockstore, signed results in the MacroJobs' docs
    const results = (await processorDocs(env, job.jobId)).results

    const updates: ProgressUpdate[] = []
    const progress = (async () => {
      for await (const u of env.client.progress(job.jobId, { timeoutMs: 30_000 })) updates.push(u)
    })()

    const outputs = job.microJobs.map(d => new TextEncoder().encode(`output of ${d.macroIndex}.${d.index}`))
    for (const [g, d] of job.microJobs.entries()) {
      const bytes = outputs[g]
      await env.peer.helia.blockstore.put(CID.createV1(raw.code, await sha256.digest(bytes)), bytes)
      results.write(d.macroIndex, d.index, { term: 1, outputHash: digest(bytes), size: bytes.length })
    }
    await progress
    expect(updates.at(-1)).toEqual({ done: 4, total: 4 })
    expect(updates.map(u => u.done)).toEqual([...updates.map(u => u.done)].sort((a, b) => a - b))

    const got = await env.client.results(job.jobId, { signal: AbortSignal.timeout(30_000) })
    expect(got.map(o => new TextDecoder().decode(o.bytes))).toEqual(outputs.map(o => new TextDecoder().decode(o)))
    expect(got.map(o => `${o.macroIndex}.${o.index}`)).toEqual(['0.0', '0.1', '1.0', '1.1'])

    // a result claims a hash its output does not have
    const d = job.microJobs[2]
    const cid = CID.createV1(raw.code, await sha256.digest(outputs[2]))
    results.write(d.macroIndex, d.index, { term: 2, outputHash: digest(new TextEncoder().encode('forged')), size: 6, outputCid: cid.toString() })
    // the client closed the job's docs when its last read ended: this one opens them again, caught up from the peer
    expect(docsOfJob(env.client.docs.names(), job.jobId)).toEqual([])
    const err = await env.client.results(job.jobId).catch((e: unknown) => e as Error & { macroIndex: number, index: number })
    expect(err.name).toBe('ResultHashMismatchError')
    expect([err.macroIndex, err.index]).toEqual([1, 0])

    // once results are on chain, the submitter's manifest (checked against resultRoot) names the outputs
    const payee = await env.wallet(2).getAddress()
    const entries = await Promise.all(job.microJobs.map(async (m, g) => ({
      microId: m.microId, macroIndex: m.macroIndex, index: m.index, start: m.start, end: m.end,
      outputHash: `0x${Buffer.from(digest(outputs[g])).toString('hex')}`,
      outputCid: CID.createV1(raw.code, await sha256.digest(outputs[g])).toString(),
      size: outputs[g].length,
      signer: env.peer.peerId.toString(),
      payee
    })))
    const resultRoot = resultTree(entries).root
    const manifest = encodeManifest({ version: 2, jobId: job.jobId, resultRoot, microJobs: entries })
    const manifestCid = CID.createV1(raw.code, await sha256.digest(manifest))
    await env.peer.helia.blockstore.put(manifestCid, manifest)
    const sub = env.contracts(2)
    const gpu = keccak256(new TextEncoder().encode('any-gpu'))
    await registerNode(env, 2, gpu, 8, env.deployment.params.registry.minStake)
    await (await sub.jobEscrow.commitResults(job.jobId, resultCommitment(job.jobId, 0, resultRoot, manifestCid.toString(), payee))).wait()
    await (await sub.jobEscrow.submitResults(job.jobId, resultRoot, manifestCid.toString(), [])).wait()
    const verified = await env.client.results(job.jobId, { signal: AbortSignal.timeout(30_000) })
    expect(verified.map(o => new TextDecoder().decode(o.bytes))).toEqual(outputs.map(o => new TextDecoder().decode(o)))

    // jobmesh-dapp results writes them, and says the verifiers have not confirmed them: the job is Submitted, not Released
    const files = { out: join(env.dir, 'out') }
    const bootstrap = env.peer.libp2p.getMultiaddrs().find(m => !m.toString().includes('/ws'))!.toString()
    const stdout: string[] = []
    const stderr: string[] = []
    expect(await run(['results', job.jobId, '--out', files.out, ...await connectFlags(env),
      '--bootstrap', bootstrap], { out: (l) => stdout.push(l), err: (l) => stderr.push(l) })).toBe(0)
    expect(stdout).toEqual([`4 outputs verified and written to ${files.out}`])
    expect(stderr).toEqual(['note: the verifiers have not confirmed these outputs yet: each matches its hash and the root the submitter put on chain, ' +
      `but the escrow has not released job ${job.jobId} (jobmesh-dapp wait ${job.jobId} waits for it)`])
    expect(new TextDecoder().decode(await readFile(join(files.out, '1.1.bin')))).toBe('output of 1.1')
  })
})
