import { describe, expect, it } from 'vitest'
import { namedPayees, payeesOverCap } from '../../src/settlement/named-payees.js'

const A = '0x' + 'aa'.repeat(20)
const B = '0x' + 'Bb'.repeat(20)
const ME = '0x' + 'cc'.repeat(20)

describe('namedPayees', () => {
  it('names each wallet the leaves pay once, in order, without the submitter\'s own or the zero address', () => {
    const entries = [A, ME, B, A.toUpperCase().replace('0X', '0x'), B.toLowerCase(), '0x' + '00'.repeat(20), ME.toUpperCase().replace('0X', '0x')]
      .map(payee => ({ payee }))
    expect(namedPayees(entries, ME)).toEqual([A, B])
  })

  it('names nobody when the submitter ran every MicroJob', () => {
    expect(namedPayees([{ payee: ME }, { payee: ME }], ME.toUpperCase().replace('0X', '0x'))).toEqual([])
  })

  it('leaves out, past the cap, the payees with the fewest leaves (ties by address), never the submitter', () => {
    const C = '0x' + 'cd'.repeat(20)
    const entries = [A, A, A, B, B, C, C, ME, ME, ME, ME].map(payee => ({ payee }))
    expect(payeesOverCap(entries, ME, 3)).toEqual(new Set())
    expect(payeesOverCap(entries, ME, 2)).toEqual(new Set([C])) // B and C have two leaves each: B's address ranks first
    expect(payeesOverCap(entries, ME, 1)).toEqual(new Set([B.toLowerCase(), C]))
    expect(payeesOverCap(entries, ME, 0)).toEqual(new Set([A, B.toLowerCase(), C]))
  })
})
