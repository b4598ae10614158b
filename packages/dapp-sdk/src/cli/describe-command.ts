import { terminalSafe } from '@jobmesh/peer/terminal-text'
import { jobIdArg } from './options.js'
import { withConnectFlags } from './client-options.js'
import { withClient } from './job-commands.js'
import type { ConnectFlags } from './client-options.js'
import type { CliIo } from './io.js'
import type { JobStory, MismatchReason } from '@jobmesh/peer/observe'
import type { Command } from 'commander'

const REASONS: Record<MismatchReason, string> = {
  vram: 'too little VRAM',
  'gpu-model': 'other GPU model',
  paused: 'paused',
  exiting: 'exiting (leaving the registry)',
  'kicked-out': 'kicked out of the registry',
  unscored: 'at QoS score 0 (not drawn until a probe scores it)',
  'not-registered': 'not registered'
}

/** A job's story for people. */
export function formatStory (story: JobStory): string[] {
  // a story's lines and the peers' GPU models come from the network: each printed as one line without controls
  const out = [`job ${story.jobId}`, `phase: ${story.phase}`, `waiting for: ${terminalSafe(story.waitingFor)}`, '', 'story:']
  for (const line of story.lines) out.push(`  ${terminalSafe(line)}`)
  if (story.matching.byPeer.length > 0) {
    // the job's requirements only: whether a matching peer's free stake covers the bond is the waiting line's to say
    out.push('', 'peers (against the job\'s requirements):')
    for (const p of story.matching.byPeer) {
      const why = p.reasons.length === 0 ? 'matches' : p.reasons.map(r => REASONS[r]).join(', ')
      out.push(`  ${p.peerId}  ${terminalSafe(p.gpuModel)} / ${p.vramGb} GB  ${why}`)
    }
  }
  return out
}

/** `jobmesh-dapp describe <jobId>`: the job's story and what it is waiting for. */
export function describeCommand (root: Command, io: CliIo): void {
  withConnectFlags(root.command('describe')
    .description('tell a job\'s story: who can take it (and why others cannot), progress, verifiers, what it waits for now')
    .argument('<jobId>', 'job id', jobIdArg), 'reads')
    .action(async (jobId: string, flags: ConnectFlags) => {
      await withClient(flags, io, async (client) => {
        const story = await client.describe(jobId)
        if (flags.json === true) io.out(JSON.stringify(story))
        else for (const line of formatStory(story)) io.out(line)
      }, { access: 'reads' })
    })
}
