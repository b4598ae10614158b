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
  const among = fitting && req != null
    ? `the active nodes with at least ${req.minVramGb} GB VRAM${req.gpuModel == null ? '' : ` and a ${req.gpuModel}`}`
    : 'the active nodes'
  return `job ${shortId(job.jobId)} is left alone until more nodes join: its ${job.verifiers} verifiers are drawn among ${among} besides its submitter, ${needed} are needed, ${nodes} ${nodes === 1 ? 'is' : 'are'} ${fitting ? 'known' : 'active'}`
}
