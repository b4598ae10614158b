import { ZeroHash, id as keccakText } from 'ethers'

/**
 * The bytes32 id of a GPU model or model name on chain: keccak256 of its UTF-8 name; ZeroHash for none ("Any").
 * The same rule as the DApp SDK's `labelId`.
 */
export function labelId (name: string | undefined): string {
  return name === undefined || name === '' ? ZeroHash : keccakText(name)
}
