import { Interface } from 'ethers'
import {
  encodingAbi,
  incentivePoolAbi,
  jobEscrowAbi,
  modelRegistryAbi,
  nodeRegistryAbi,
  qosAbi,
  sumTreeAbi,
  verificationQueueAbi
} from './artifacts.generated.js'
import type { Result } from 'ethers'

/** A custom Solidity error decoded from revert data. */
export interface DecodedContractError {
  /** Error name, e.g. `UnderfundedJob`. */
  name: string
  /** Error signature, e.g. `UnderfundedJob(uint256,uint256)`. */
  signature: string
  /** Decoded arguments (positional and by name). */
  args: Result
  /** The raw revert data. */
  data: string
}

let combined: Interface | undefined

/** One interface with the errors of every jobmesh contract and library (errors bubble up through calls). */
function errorsInterface (): Interface {
  if (combined === undefined) {
    const seen = new Set<string>()
    const fragments: unknown[] = []
    for (const abi of [jobEscrowAbi, nodeRegistryAbi, incentivePoolAbi, modelRegistryAbi, sumTreeAbi, verificationQueueAbi, qosAbi, encodingAbi] as const) {
      for (const f of abi as readonly { type: string, name?: string, inputs?: ReadonlyArray<{ type: string }> }[]) {
        if (f.type !== 'error') continue
        const key = `${f.name}(${(f.inputs ?? []).map((i) => i.type).join(',')})`
        if (seen.has(key)) continue
        seen.add(key)
        fragments.push(f)
      }
    }
    combined = new Interface(fragments as never)
  }
  return combined
}

function findRevertData (err: unknown, depth = 0): string | undefined {
  if (err == null || typeof err !== 'object' || depth > 5) return undefined
  const e = err as Record<string, unknown>
  if (typeof e.data === 'string' && /^0x[0-9a-fA-F]{8}/.test(e.data)) return e.data
  for (const key of ['error', 'info', 'cause', 'data']) {
    const found = findRevertData(e[key], depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * Decodes a custom error of the jobmesh contracts from an ethers error (a failed call, estimateGas or
 * transaction) or from raw revert data. Returns `undefined` when there is no revert data or it matches none.
 *
 * @example
 * ```ts
 * try { await jobEscrow.createJob(p, { value: 1n }) } catch (err) {
 *   decodeContractError(err)?.name // 'UnderfundedJob'
 * }
 * ```
 */
export function decodeContractError (errOrData: unknown): DecodedContractError | undefined {
  const data = typeof errOrData === 'string' ? errOrData : findRevertData(errOrData)
  if (data === undefined) return undefined
  try {
    const parsed = errorsInterface().parseError(data)
    if (parsed === null) return undefined
    return { name: parsed.name, signature: parsed.signature, args: parsed.args, data }
  } catch {
    return undefined
  }
}
