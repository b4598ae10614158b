import { formatUnits } from 'ethers'

/** `1 peer`, `2 peers`, `0 peers`. */
export function plural (n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`
}

/** A task value (wei per second) for people: the exact wei and the same in gwei, in plain notation. */
export function weiPerSecond (wei: bigint): string {
  return `${wei} wei/s (${formatUnits(wei, 'gwei')} gwei/s)`
}
