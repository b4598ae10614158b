/** The `job:waiting` lines a peer prints (and shows on its dashboard) for a job it leaves alone, and why. */
import { formatEther } from 'ethers'
import { shortId, sizeText } from './observe/index.js'
import { microJobCount, microJobOutputBound, nodesNeeded } from './protocol/index.js'
import type { JobSpec } from './protocol/index.js'
import type { SupplyJob } from './settlement/index.js'

/** The `job:waiting` line of a job whose bond this node cannot lock (an exiting node locks none: it takes no job). */
export function bondText (jobId: string, bond: bigint, free: bigint, exiting: boolean): string {
  if (exiting) return `job ${shortId(jobId)} is left alone: this node asked to exit, so it takes no job (it settles and claims what it earned)`
  return `job ${shortId(jobId)} is left alone: submitting its results locks a bond of ${formatEther(bond)} ETH, this node has ${formatEther(free)} ETH of free stake (more stake: jobmesh start --stake)`
}

/** The `job:waiting` line of a job whose outputs may come to more than this peer's `--max-job-output`. */
export function outputText (jobId: string, spec: JobSpec, bound: number, max: number): string {
  const each = `${sizeText(microJobOutputBound(spec))} each${spec.estimate.maxOutputBytes == null ? ' (it declares no bound)' : ''}`
  return `job ${shortId(jobId)} is left alone: its ${microJobCount(spec)} MicroJobs may output up to ${each}, ${sizeText(bound)} in all, more than this node's --max-job-output of ${sizeText(max)}`
}

/** The `job:waiting` line of a job left alone for want of nodes to verify it (`nodes` active, or `fitting` it). */
export function waitingText (job: SupplyJob, nodes: number, fitting: boolean): string {
  const needed = nodesNeeded(job.verifiers)
  const req = job.requirements
  // what the job asks of a node, only what it does ask (a GPU model without VRAM said "at least 0 GB VRAM and a A100")
  const asks = req == null ? [] : [req.minVramGb > 0 ? `at least ${req.minVramGb} GB VRAM` : '', req.gpuModel != null ? `GPU model ${req.gpuModel}` : ''].filter(a => a !== '')
  const among = fitting && asks.length > 0 ? `the active nodes with ${asks.join(' and ')}` : 'the active nodes'
  const such = fitting && asks.length > 0 ? 'such nodes' : 'nodes'
  return `job ${shortId(job.jobId)} is left alone until more ${such} join: its ${job.verifiers} verifiers are drawn among ${among} besides its submitter, ${needed} are needed, ${nodes} ${nodes === 1 ? 'is' : 'are'} ${fitting ? 'known' : 'active'}`
}
