import { describe, expect, it } from 'vitest'
import { privateKeyHex } from '../src/index.js'

describe('privateKeyHex', () => {
  const hex = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
  it('takes 64 hex digits with or without 0x, around whitespace too, and gives the 0x form', () => {
    expect(privateKeyHex(hex)).toBe(`0x${hex}`)
    expect(privateKeyHex(`0x${hex}\n`)).toBe(`0x${hex}`)
    expect(privateKeyHex(`  ${hex.toUpperCase()} `)).toBe(`0x${hex.toUpperCase()}`)
  })
  it('refuses anything else', () => {
    for (const bad of ['', hex.slice(1), `${hex}0`, `0x${hex.slice(0, 63)}g`, `0x 0x${hex}`, `${hex} ${hex}`]) expect(privateKeyHex(bad)).toBeUndefined()
  })
})
