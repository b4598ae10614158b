import type { SampleLeaf } from '../../client/contract-types.js'

/** A `ResultLeaf` as the ABI encodes it: (microId, macroIndex, index, outputHash, payee). */
export function resultLeafTuple (l: SampleLeaf): [string, number, number, string, string] {
  return [l.microId, l.macroIndex, l.index, l.outputHash, l.payee]
}
