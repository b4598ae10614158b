import { describe, expect, it } from 'vitest'
import { detectionProbability, priceFor, samplesFor, verificationIssue } from '../src/index.js'

describe('verification level', () => {
  it('turns a fraction into whole MicroJobs per MacroJob', () => {
    expect(samplesFor(undefined, 8)).toBe(1)
    expect(samplesFor(0.01, 8)).toBe(1)
    expect(samplesFor(0.25, 8)).toBe(2)
    expect(samplesFor(0.3, 8)).toBe(3)
    expect(samplesFor(1, 8)).toBe(8)
    expect(samplesFor('full', 8)).toBe(8)
  })

  it('refuses levels out of range and samples over the escrow bound', () => {
    expect(verificationIssue(0, { macroJobs: 2, microJobsPerMacro: 8 })).toMatch(/fraction/)
    expect(verificationIssue(1.5, { macroJobs: 2, microJobsPerMacro: 8 })).toMatch(/fraction/)
    expect(verificationIssue('full', { macroJobs: 8, microJobsPerMacro: 8 })).toBeUndefined()
    expect(verificationIssue('full', { macroJobs: 9, microJobsPerMacro: 8 })).toMatch(/allows 64/)
  })

  it('prices verification: the processors keep their pay whatever the level', () => {
    // 8 MicroJobs per MacroJob, k = 3: one sample -> 11 units, full -> 32 units
    expect(priceFor(800n, { microJobsPerMacro: 8 }, 3)).toBe(1100n)
    expect(priceFor(800n, { microJobsPerMacro: 8 }, 3, 'full')).toBe(3200n)
    const fee = priceFor(10n ** 18n, { microJobsPerMacro: 8 }, 2, 0.5)
    expect(fee * 8n / (8n + 2n * 4n)).toBeGreaterThanOrEqual(10n ** 18n - 1n)
  })

  it('states the chance that one round sees a wrong MicroJob', () => {
    expect(detectionProbability(1, 8, 1)).toBe(1 / 8)
    expect(detectionProbability(1, 8, 8)).toBe(1)
    expect(detectionProbability(4, 8, 1)).toBe(0.5)
    expect(detectionProbability(0, 8, 1)).toBe(0)
  })
})
