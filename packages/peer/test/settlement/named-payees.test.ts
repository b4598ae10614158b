import { describe, expect, it } from 'vitest'
import { namedPayees } from '../../src/settlement/named-payees.js'

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
})
