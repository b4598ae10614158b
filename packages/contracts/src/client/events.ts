import { incentivePoolAbi, jobEscrowAbi, modelRegistryAbi, nodeRegistryAbi } from '../artifacts.generated.js'
import { Interface, zeroPadValue } from 'ethers'
import type { Log } from 'ethers'

/** A decoded event of NodeRegistry, JobEscrow, IncentivePool or ModelRegistry. */
export interface ChainEvent {
  /** Event name, e.g. `VerifierAssigned`. */
  name: string
  /** Arguments by name (uint -> bigint, address -> checksummed string, bytes32 -> hex). */
  args: Record<string, unknown>
  address: string
  blockNumber: number
  transactionHash: string
  logIndex: number
}

let iface: Interface | undefined

/** One interface over the contracts' events. */
export function eventsInterface (): Interface {
  if (iface === undefined) {
    const seen = new Set<string>()
    const fragments: unknown[] = []
    for (const abi of [jobEscrowAbi, nodeRegistryAbi, incentivePoolAbi, modelRegistryAbi] as const) {
      for (const f of abi as readonly { type: string, name?: string }[]) {
        if (f.type !== 'event' || seen.has(f.name ?? '')) continue
        seen.add(f.name ?? '')
        fragments.push(f)
      }
    }
    iface = new Interface(fragments as never)
  }
  return iface
}

/** Decodes a log of the jobmesh contracts; `undefined` for a log it does not know. */
export function decodeLog (log: Log): ChainEvent | undefined {
  let parsed
  try {
    parsed = eventsInterface().parseLog({ topics: [...log.topics], data: log.data })
  } catch {
    return undefined
  }
  if (parsed == null) return undefined
  const args: Record<string, unknown> = {}
  parsed.fragment.inputs.forEach((input, i) => { args[input.name] = parsed.args[i] })
  return {
    name: parsed.name,
    args,
    address: log.address,
    blockNumber: log.blockNumber,
    transactionHash: log.transactionHash,
    logIndex: log.index
  }
}

/** An event filter: names (topic 0), and the first / second indexed argument (topics 1 and 2). */
export interface EventFilter {
  /** Event names; all when omitted. */
  names?: readonly string[]
  /** First indexed argument (`jobId` of escrow events, `node` of registry events). */
  topic1?: string
  /** Second indexed argument (e.g. the `verifier` of `VerifierAssigned`). */
  topic2?: string
}

function topicOf (value: string): string {
  return value.length === 42 ? zeroPadValue(value, 32).toLowerCase() : value.toLowerCase()
}

/** The `topics` of an `eth_getLogs` request for a filter. */
export function filterTopics (filter: EventFilter): Array<string | string[] | null> {
  const topics: Array<string | string[] | null> = []
  topics[0] = filter.names == null ? null : filter.names.map(n => eventsInterface().getEvent(n)?.topicHash ?? '')
  if (filter.topic1 != null || filter.topic2 != null) topics[1] = filter.topic1 == null ? null : topicOf(filter.topic1)
  if (filter.topic2 != null) topics[2] = topicOf(filter.topic2)
  while (topics.length > 0 && topics[topics.length - 1] === null) topics.pop()
  return topics
}
