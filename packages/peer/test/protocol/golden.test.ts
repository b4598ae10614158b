import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  computeJobId, createPrng, encodeJobSpec, jobTree, parseJobSpec, resultLeafHash, resultTree, sliceJob, validationIndex,
  verifierHash
} from '../../src/protocol/index.js'

// Independent reference values: see ../fixtures/generate-golden.mjs (ethers + OpenZeppelin only).
const golden = JSON.parse(readFileSync(new URL('../fixtures/golden-vectors.json', import.meta.url), 'utf8'))

describe('golden vectors', () => {
  for (const v of golden.vectors) {
    describe(v.name, () => {
      const spec = parseJobSpec(v.spec)
      const jobId = computeJobId(spec.creator, v.specCid, BigInt(v.nonce))
      const slicing = sliceJob(spec, jobId)

      it('canonical spec encoding', () => {
        expect(new TextDecoder().decode(encodeJobSpec(spec))).toBe(v.canonicalSpec)
      })

      it('jobId, macroIds, microIds and ranges', () => {
        expect(jobId).toBe(v.jobId)
        expect(slicing.macroJobs.map(m => m.macroId)).toEqual(v.macroIds)
        expect(slicing.microJobs).toEqual(v.microJobs)
      })

      it('jobRoot and resultRoot', () => {
        expect(jobTree(slicing.microJobs).root).toBe(v.jobRoot)
        const results = slicing.microJobs.map((d, g) => ({ microId: d.microId, macroIndex: d.macroIndex, index: d.index, outputHash: v.outputHashes[g], payee: v.payees[g] }))
        expect(resultTree(results).root).toBe(v.resultRoot)
      })

      it('validation indices and verifier hash', () => {
        const P = spec.slicing.microJobsPerMacro
        const indices = slicing.macroJobs.map(m => validationIndex(spec.seed, m.index, v.sampleEntropy, P))
        expect(indices).toEqual(v.validationIndices)
        const leaf = (g: number): string => resultLeafHash({ ...slicing.microJobs[g], outputHash: v.outputHashes[g], payee: v.payees[g] })
        expect(verifierHash(indices.map((i, m) => leaf(m * P + i)), v.executionDigest)).toBe(v.verifierHash)
      })
    })
  }

  it('PRNG outputs', () => {
    const prng = createPrng(BigInt(golden.prng.seed))
    expect([prng.next(), prng.next(), prng.next()].map(String)).toEqual(golden.prng.outputs)
  })
})
