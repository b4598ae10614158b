import { describe, expect, it } from 'vitest'
import { promptTargets } from '../../src/models/index.js'

const A = '0x00000000000000000000000000000000000000aA'
const B = '0x00000000000000000000000000000000000000bB'
const C = '0x00000000000000000000000000000000000000cC'
const D = '0x00000000000000000000000000000000000000dD'

describe('promptTargets', () => {
  const profiles = [
    { address: A, gpuModel: 'RTX 4090', vramGb: 24 },
    { address: B, gpuModel: 'RTX 4090', vramGb: 8 },
    { address: C, gpuModel: 'A100', vramGb: 80 },
    { address: D, gpuModel: 'RTX 4090', vramGb: 24 },
    { address: D, gpuModel: 'RTX 4090', vramGb: 24 }
  ]

  it('names each other eligible node once: the job\'s GPU model and VRAM, never the excluded (lower-cased) address', () => {
    const out = promptTargets(profiles, { minVramGb: 16, gpuModel: 'RTX 4090' }, new Set([A.toLowerCase()]))
    expect(out).toEqual([D])
    expect(promptTargets(profiles, { minVramGb: 16 }, new Set()).sort()).toEqual([A, C, D].sort())
    expect(promptTargets(profiles, { minVramGb: 100 }, new Set())).toEqual([])
  })

  it('shuffles with the given random source (Fisher-Yates), so fallbacks do not all prompt the same node', () => {
    const any = { minVramGb: 0 }
    expect(promptTargets(profiles, any, new Set(), () => 0.999)).toEqual([A, B, C, D])
    expect(promptTargets(profiles, any, new Set(), () => 0)).toEqual([B, C, D, A])
  })
})
