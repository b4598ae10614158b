import { multiaddr } from '@multiformats/multiaddr'
import { parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { createChainClient } from '@jobmesh/contracts'
import { createContentStore } from '@jobmesh/peer/storage'
import { waitFor } from '@jobmesh/testkit'
import { MANDELBROT_BLOCK_SIZE, encodeMandelbrotData, gradientPalette, mandelbrotPaletteReference, submitMandelbrotPalette } from '../../examples/src/index.js'
import { microJobInput } from '@jobmesh/peer/executor'
import { peerStatus, startNetwork } from './helpers.js'
import type { Network } from './helpers.js'
import type { ChainClient } from '@jobmesh/contracts'
import type { JobClient } from '@jobmesh/dapp-sdk'
import type { PeerStatus } from '@jobmesh/peer'

/** Seconds a non-holder leaves a model job to the holders (`jobmesh start --holder-grace`). */
const GRACE_S = 10

/** Follows a job's progress until every MicroJob is done (the SDK's iterator ends there). */
async function finished (client: JobClient, jobId: string): Promise<number> {
  let done = 0
  for await (const p of client.progress(jobId, { timeoutMs: 120_000 })) done = p.done
  return done
}

describe('models on a devnet of jobmesh processes', () => {
  let net: Network | undefined
  let chain: ChainClient | undefined

  afterEach(async () => {
    chain?.provider.destroy()
    chain = undefined
    await net?.stop()
    net = undefined
  })

  it('a job naming a model (a palette its code reads) runs on its holder first; with the holder gone a peer without it fetches it and prompts another, which prefetches it', async () => {
    // peer-0 processes and holds nothing; peers 1 and 2 only verify (never a fallback, so the ones to prompt; a job
    // needs k >= 3 verifiers besides its submitter)
    net = await startNetwork({ peers: 3, peer: (i) => i === 0 ? { holderGraceSeconds: GRACE_S } : { process: false, holderGraceSeconds: GRACE_S } })
    const { client, devnet } = net
    chain = createChainClient({ rpcUrl: devnet.anvil.rpcUrl, deployment: devnet.deployment })
    const store = createContentStore({ helia: client.node.helia })
    // the job's model: a palette the job's code colours the image with (examples/assembly/mandelbrot-palette.ts)
    const palette = gradientPalette()
    const model = `ipfs://${await store.addBytes(palette)}`
    const holder = await devnet.addPeer({ models: [model] })
    // the model is on the DApp's node only: the holder fetches it from there (bitswap asks the peers it is connected to)
    const tcp = holder.addresses.find(a => !a.includes('/ws')) ?? holder.addresses[0]
    await client.node.libp2p.dial(multiaddr(tcp.includes('/p2p/') ? tcp : `${tcp}/p2p/${holder.peerId}`))
    // the holder is in devnet.peers too (addPeer): the verifiers are the other two, never the holder killed below
    const [fallback, ...verifiers] = devnet.peers.filter(p => p !== holder)
    const address = async (p: { dataDir: string }): Promise<string> => (await peerStatus(p.dataDir)).chain?.address ?? ''
    const [holderAddress, fallbackAddress] = [await address(holder), await address(fallback)]
    const c = chain
    await waitFor(async () => (await c.modelHolding(model, holderAddress)).held, { timeoutMs: 60_000, what: 'the holder announced its model' })

    // holder first: the peer without the model leaves the job to the holder, which runs all of it
    const image = { width: 64, height: 16, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 64 }
    const job = { image, price: parseEther('1'), verifiers: 3, palette: { uri: model } }
    const first = await submitMandelbrotPalette(client, { ...job, macroJobs: 4, microJobsPerMacro: 2 })
    expect(first.spec.requirements.modelId).toBe(model)
    expect(await finished(client, first.jobId)).toBe(8)
    expect((await peerStatus(holder.dataDir)).work.microJobsDone).toBe(8)
    expect((await peerStatus(fallback.dataDir)).work.microJobsDone).toBe(0)
    // the code got the palette before its blocks, on the holder and on the verifiers that re-ran it: released, and
    // every output is the palette's colouring of its band
    expect((await client.waitForRelease(first.jobId, { pollIntervalMs: 500, timeoutMs: 120_000 })).status).toBe('Released')
    const data = encodeMandelbrotData(image, 1)
    const outputs = await client.results(first.jobId)
    expect(outputs).toHaveLength(8)
    for (const o of outputs) {
      expect(o.bytes).toEqual(mandelbrotPaletteReference(microJobInput(data.subarray(o.start * MANDELBROT_BLOCK_SIZE, o.end * MANDELBROT_BLOCK_SIZE), palette)))
    }

    // the holder is gone (crashed: still a holder on chain, and still in the registry's draw, so the job can still
    // be verified; a clean stop would pause it, leaving three active nodes for a job with three verifiers): after its
    // grace the other peer runs the job, fetching the model
    // counted from here: the first job is released and its results read, so nothing of it runs any more. One CI run
    // counted 5 below for the second job's 4 when it counted from the peer's start; the likeliest cause (not traced):
    // on a loaded machine the fallback's grace ended while the holder ran the first job's last MicroJob, and the
    // fallback ran it too, after the check above
    const before = (await peerStatus(fallback.dataDir)).work.microJobsDone
    holder.kill('SIGKILL')
    await holder.exited
    const second = await submitMandelbrotPalette(client, { ...job, macroJobs: 1, microJobsPerMacro: 4 })
    expect(await finished(client, second.jobId)).toBe(4)
    expect((await peerStatus(fallback.dataDir)).work.microJobsDone - before).toBe(4)

    // it holds the model now, says so on chain, and prompted one of the verifiers, which prefetched and announced it
    let s: PeerStatus | undefined
    await waitFor(async () => {
      s = await peerStatus(fallback.dataDir)
      return s.models.announced?.includes(model) === true
    }, { timeoutMs: 60_000, what: 'the fallback announced the model' })
    expect(s?.models.fallback).toEqual([model])
    // the prompt is sent after the announcement, in its own transaction
    const { verifier, verifierAddress, prompts } = await waitFor(async () => {
      for (const v of verifiers) {
        const a = await address(v)
        const sent = await c.modelPrompts(a)
        if (sent.length > 0) return { verifier: v, verifierAddress: a, prompts: sent }
      }
      return undefined
    }, { timeoutMs: 60_000, what: 'the fallback prompted a verifier' })
    expect(prompts.map(p => ({ modelId: p.modelId, by: p.by }))).toEqual([{ modelId: model, by: fallbackAddress }])
    await waitFor(async () => {
      s = await peerStatus(verifier.dataDir)
      return s.models.announced?.includes(model) === true
    }, { timeoutMs: 60_000, what: 'the prompted peer prefetched and announced the model' })
    expect(s?.models.prompted).toEqual([model])
    expect(await c.modelHolders(model)).toEqual(expect.arrayContaining([holderAddress, fallbackAddress, verifierAddress]))
    // each operator read it on the peer's output
    const lines = (p: { output: string[] }): string[] => p.output.filter(l => l.includes('model'))
    expect(lines(holder)).toContainEqual(expect.stringContaining(`holding model ${model} (kept with --model)`))
    // the killed holder is still recorded on chain (it said "no active node held it", whoever held it)
    expect(lines(fallback)).toContainEqual(expect.stringMatching(new RegExp(`fetched model ${model} to run job 0x[0-9a-f]{8}: its holders left the job for the holder grace`)))
    expect(lines(fallback)).toContainEqual(expect.stringContaining(`prompted ${verifierAddress} to download model ${model}`))
    expect(lines(verifier)).toContainEqual(expect.stringContaining(`holding model ${model} (prefetched on a prompt)`))
    expect(lines(verifier)).toContainEqual(expect.stringContaining(`model ${model} is recorded on chain as held by this node`))
  }, 240_000)
})
