import { nodesNeeded } from '@jobmesh/peer/protocol'
import { formatEther } from 'ethers'
import type { JobClient } from '../client.js'
import { nodeShortfall } from '../network/active-nodes.js'
import type { PeerMatching } from '../describe.js'

/** A job weighed against the network: `submit` before it pays, `wait` while it waits. */
export interface JobToFit {
  /** Its verifiers. */
  k: number
  /** How lines name it: `a job`, `job 0x...`. */
  name: string
  /** Not processed yet: no matching peer means it never starts. */
  unprocessed: boolean
  /** The known peers matching its requirements; undefined when they cannot be told. */
  matching: () => Promise<PeerMatching | undefined>
  /** Its fee (wei): the bond its submitter locks follows from it. */
  fee?: bigint
  /**
   * Whether a peer saw it announced: false when the known peers' index has no announcement of it (a submit that
   * stopped between its funding transaction and its announcement), undefined when that cannot be told.
   */
  announced?: () => Promise<boolean | undefined>
  /** Its deadline (unix s), for what to do about it. */
  deadline?: number
  signal?: AbortSignal
}

/** Why a job cannot finish (`why`), and the line that says it with what then happens or what to do (`text`). */
export interface CannotFinish {
  why: string
  text: string
  /**
   * Read on chain (the count of active nodes), so certain; otherwise read from the peers' profiles this client knows,
   * which may be a part of them (a client that just connected, or a data dir holding profiles of nodes gone since).
   */
  onChain: boolean
}

function reason (why: string, sep: ': ' | '; ', then: string, onChain = false): CannotFinish {
  return { why, text: `${why}${sep}${then}`, onChain }
}

/**
 * Why a job cannot finish on this network, or undefined: an open job no known peer saw announced, fewer than k + 1
 * active nodes (registered, not paused, exiting nor kicked out: its submitter cannot verify it), no known node whose free stake
 * covers its bond, or fewer than k + 1 known peers matching its requirements (its verifiers are drawn among matching
 * nodes besides its submitter; with none it never starts). Without any known peer profile nothing is said of the
 * requirements.
 */
export async function cannotFinish (client: JobClient, job: JobToFit): Promise<CannotFinish | undefined> {
  const { k, name } = job
  if (job.unprocessed && await job.announced?.() === false) {
    const after = job.deadline === undefined ? 'its deadline' : `its deadline (${new Date(job.deadline * 1000).toISOString()})`
    return reason(`no peer has seen ${name} announced (the process that submitted it stopped before announcing it?)`, ': ',
      'no peer will work on it; submitting it again does not announce it (a new submit creates and pays for another job): take the fee back after ' +
      `${after} with jobmesh-dapp refund ${name.replace(/^job /, '')}`)
  }
  const needed = nodesNeeded(k)
  const short = nodeShortfall(await client.activeNodes({ signal: job.signal }), k, name)
  if (short !== undefined) {
    return reason(short.why, ': ', 'the peers leave it alone until more nodes join (no work on it could be paid); without them, refund it after its deadline', true)
  }
  if (job.fee !== undefined && job.unprocessed) {
    const b = await client.bondableNodes(job.fee, { signal: job.signal })
    if (b.known > 0 && b.nodes === 0) {
      return reason(`no known node can submit the results of ${name}: that locks a bond of ${formatEther(b.bond)} ETH ` +
        `(from the fee), the largest free stake among the ${b.known} known nodes is ${formatEther(b.largestFree)} ETH`, '; ',
      'the peers leave it alone (a lower price, or nodes with more stake)')
    }
  }
  const m = await job.matching()
  if (m === undefined || m.peers === 0 || m.matching >= needed) return undefined
  if (m.matching === 0 && job.unprocessed) return reason(`no known peer can run ${name}: ${m.summary}`, '; ', 'it will not start unless such peers join')
  return reason(`${m.summary}; ${name} needs ${needed} (its ${k} verifiers are drawn among matching nodes besides its submitter)`, ': ',
    'it will not be released unless more join')
}

/** {@link cannotFinish} as the warning line `wait` and a forced `submit` print. */
export async function cannotFinishWarning (client: JobClient, job: JobToFit): Promise<string | undefined> {
  const r = await cannotFinish(client, job)
  return r === undefined ? undefined : `warning: ${r.text}`
}
