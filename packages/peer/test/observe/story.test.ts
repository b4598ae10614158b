import { describe, expect, it } from 'vitest'
import { explainJob, matchPeers, outOfDraw } from '../../src/observe/index.js'
import type { JobFacts, OutOfDraw, PeerFacts, VerificationView } from '../../src/observe/index.js'

const peers: PeerFacts[] = [
  { peerId: '12D3KooWAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', gpuModel: 'RTX 4090', vramGb: 24 },
  { peerId: '12D3KooWBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', gpuModel: 'RTX 4090', vramGb: 16 },
  { peerId: '12D3KooWCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC', gpuModel: 'A100', vramGb: 80, out: 'paused' }
]

const jobId = '0x' + 'ab'.repeat(32)
/** Four active peers that fit a 20 GB job: enough for its 3 verifiers besides a submitter. */
const fit = [0, 1, 2, 3].map(i => ({ peerId: `12D3KooWFit${i}`, gpuModel: 'RTX 4090', vramGb: 24 }))

function chain (over: Partial<VerificationView>): VerificationView {
  return {
    jobId, status: 'Open', headBlock: 100, round: 0, k: 3, assigned: 0, commits: 0, reveals: 0, seeds: 3, sampleFixed: true,
    deadline: 2_000_000_000, feeWei: 10n ** 18n, verifiers: [], ...over
  }
}

function facts (over: Partial<JobFacts>): JobFacts {
  return {
    jobId,
    announced: { round: 0, requirements: { minVramGb: 20 }, macroJobs: 2, microJobsPerMacro: 4, announcer: peers[0].peerId },
    peers,
    ...over
  }
}

describe('job stories', () => {
  it('names why each peer cannot take a job: VRAM, GPU model, paused', () => {
    const m = matchPeers({ minVramGb: 20, gpuModel: 'RTX 4090' }, peers)
    expect(m.matching).toBe(1)
    expect(m.byPeer.map(p => p.reasons)).toEqual([[], ['vram'], ['gpu-model', 'paused']])
    expect(m.summary).toBe('1 of 3 peers matches (needs 20 GB VRAM, GPU RTX 4090): 1 has too little VRAM (16 GB; the job needs 20 GB); ' +
      '1 has another GPU model (A100; the job needs RTX 4090); 1 is paused or not eligible on the registry')
    // a job with no hardware wanted says so (it said "needs 0 GB VRAM")
    expect(matchPeers({ minVramGb: 0 }, peers).summary).toBe('2 of 3 peers match (needs any hardware): 1 is paused or not eligible on the registry')
  })

  it('a job no peer has the VRAM for waits for one, saying how many peers there are and their VRAM', () => {
    const story = explainJob(facts({
      announced: { round: 0, requirements: { minVramGb: 96 }, macroJobs: 1, microJobsPerMacro: 2, announcer: peers[0].peerId },
      peers: peers.map(p => ({ ...p, out: undefined })),
      chain: chain({})
    }))
    expect(story.phase).toBe('open')
    expect(story.matching.matching).toBe(0)
    expect(story.waitingFor).toBe('a peer that can take it: 0 of 3 peers match (needs 96 GB VRAM): 3 have too little VRAM (80 GB, 24 GB, 16 GB; the job needs 96 GB)')
  })

  it('an open job with fewer fitting nodes than its submitter and k verifiers: the peers leave it alone, and the story says so with how many', () => {
    // one RTX 4090 node of 24 GB is known to fit (the 16 GB one has too little VRAM, the A100 is paused): 4 are needed
    const alone = explainJob(facts({ announced: { round: 0, requirements: { minVramGb: 20, gpuModel: 'RTX 4090' }, macroJobs: 2, microJobsPerMacro: 4, announcer: peers[0].peerId }, chain: chain({ activeNodes: 6 }) }))
    expect(alone.phase).toBe('open')
    expect(alone.waitingFor).toBe('more nodes that fit it: 1 of 3 peers matches (needs 20 GB VRAM, GPU RTX 4090): 1 has too little VRAM (16 GB; the job needs 20 GB); ' +
      '1 has another GPU model (A100; the job needs RTX 4090); 1 is paused or not eligible on the registry; its submitter and its 3 verifiers must all be such nodes ' +
      '(4 of them, 1 known), so the peers leave it alone (no work on it could be paid) until 3 more join (0 of 8 MicroJobs done); if none does by the deadline the creator can refund')
    // four that fit: a peer starts it
    expect(explainJob(facts({ peers: fit, chain: chain({ activeNodes: 6 }) })).waitingFor).toBe('a peer to start it (0 of 8 MicroJobs done; 4 peers can work on it)')
  })

  it('an open job whose bond no known node\'s free stake covers: the peers leave it alone, and the story says by how much', () => {
    const bondable = { bond: 2n * 10n ** 18n, nodes: 0, largestFree: 10n ** 18n, known: 4 }
    const story = explainJob(facts({ peers: fit, chain: chain({ activeNodes: 6 }), bondable }))
    expect(story.phase).toBe('open')
    expect(story.waitingFor).toBe('a node whose free stake covers its bond: submitting its results locks 2.0 ETH (from its fee), the largest free stake ' +
      'among the 4 known nodes is 1.0 ETH, so the peers leave it alone (a lower price, or nodes with more stake); if none comes by the deadline the creator can refund')
    // one node can: a peer starts it
    expect(explainJob(facts({ peers: fit, chain: chain({ activeNodes: 6 }), bondable: { ...bondable, nodes: 1 } })).waitingFor).toMatch(/^a peer to start it/)
  })

  it('follows a job through processing, verification and release', () => {
    const processing = explainJob(facts({ progress: { done: 3, total: 8, macros: [] }, chain: chain({}) }))
    expect(processing.phase).toBe('processing')
    expect(processing.waitingFor).toBe('5 more MicroJobs (3 of 8 done; 1 peer can work on it)')
    // an open job its k verifiers could never be drawn for: the peers leave it alone, and the story says why
    const unverifiable = explainJob(facts({ chain: chain({ activeNodes: 2 }) }))
    expect(unverifiable.phase).toBe('open')
    expect(unverifiable.waitingFor).toBe('more nodes: 2 are registered and active, and its 3 verifiers are drawn from the nodes besides its submitter, so the peers leave it alone (no work on it could be paid) until 2 more join; if none does by the deadline the creator can refund')
    expect(explainJob(facts({ progress: { done: 3, total: 8, macros: [] }, chain: chain({ activeNodes: 4 }) })).waitingFor).toBe(processing.waitingFor)
    expect(explainJob(facts({ progress: { done: 8, total: 8, macros: [] }, chain: chain({}) })).waitingFor).toContain('finalizer')
    // submitted, its verifiers are drawn among the nodes that fit it: with too few of those known, it says so
    const unfit = explainJob(facts({ chain: chain({ status: 'Submitted', assigned: 1, submitter: '0x' + '11'.repeat(20), submitBlock: 90 }) }))
    expect(unfit.waitingFor).toBe('verifiers that fit it: 1 of 3 peers matches (needs 20 GB VRAM): 1 has too little VRAM (16 GB; the job needs 20 GB); ' +
      '1 is paused or not eligible on the registry; its 3 verifiers are drawn among such nodes besides its submitter (1 drawn so far), so it ' +
      'cannot be verified unless more join; if none does by the deadline the creator can refund')
    const drawing = explainJob(facts({ peers: fit, chain: chain({ status: 'Submitted', assigned: 1, submitter: '0x' + '11'.repeat(20), submitBlock: 90 }) }))
    expect(drawing.waitingFor).toBe('verifiers to be drawn: 1 of 3 so far; the rest are drawn as eligible nodes become idle')
    const queued = explainJob(facts({ peers: fit, chain: chain({ status: 'Submitted', assigned: 0, queued: true, queueSize: 2 }) }))
    expect(queued.waitingFor).toBe('verifiers to be drawn: 0 of 3 so far; the job waits in the verification queue (2 jobs queued) until enough eligible nodes are idle')
    // a network too small to ever draw k verifiers besides the submitter says so, whatever the queue says
    const tooFew = explainJob(facts({ chain: chain({ status: 'Submitted', assigned: 0, queued: true, queueSize: 1, activeNodes: 3 }) }))
    expect(tooFew.waitingFor).toBe('more nodes: 2 are registered and active besides its submitter, and its 3 verifiers are drawn from those, so it cannot be drawn (0 of 3 so far) until 1 more joins; if none does by the deadline the creator can refund')
    // a submitter that paused (stopped) or left is not one of the active nodes: all of them are possible verifiers
    const pausedSubmitter = explainJob(facts({ chain: chain({ status: 'Submitted', assigned: 0, activeNodes: 2, submitterActive: false }) }))
    expect(pausedSubmitter.waitingFor).toBe('more nodes: 2 are registered and active besides its submitter, and its 3 verifiers are drawn from those, so it cannot be drawn (0 of 3 so far) until 1 more joins; if none does by the deadline the creator can refund')
    expect(explainJob(facts({ peers: fit, chain: chain({ status: 'Submitted', assigned: 0, queued: true, queueSize: 2, activeNodes: 3, submitterActive: false }) })).waitingFor).toBe(queued.waitingFor)
    expect(explainJob(facts({ peers: fit, chain: chain({ status: 'Submitted', assigned: 0, queued: true, queueSize: 2, activeNodes: 4 }) })).waitingFor).toBe(queued.waitingFor)
    const seeding = explainJob(facts({ chain: chain({ status: 'Submitted', assigned: 3, seeds: 1, sampleFixed: false, seedDeadline: 120, commitDeadline: 160, revealDeadline: 180 }) }))
    expect(seeding.waitingFor).toBe('verifiers to reveal their seeds, which fix the sample: 1 of 3, until block 120 (20 blocks left)')
    const seedsLate = explainJob(facts({ chain: chain({ status: 'Submitted', assigned: 3, seeds: 2, sampleFixed: false, seedDeadline: 90, commitDeadline: 160, revealDeadline: 180 }) }))
    expect(seedsLate.waitingFor).toBe('verifiers to reveal their seeds, which fix the sample: 2 of 3, the window is over; any peer closes it, and with no peer left the creator\'s refund settles the round after the deadline')
    const committing = explainJob(facts({ chain: chain({ status: 'Submitted', assigned: 3, commits: 1, commitDeadline: 106, revealDeadline: 112 }) }))
    expect(committing.waitingFor).toBe('verifiers to commit: 1 of 3, until block 106 (6 blocks left)')
    expect(committing.lines.some(l => l.includes('verifiers drawn 3/3') && l.includes('commit by block 106'))).toBe(true)
    // one of the three drawn missed the seed window: it may not vote, so the round waits for the other two only
    const seedless = explainJob(facts({ chain: chain({ status: 'Submitted', assigned: 3, seeds: 2, voters: 2, commits: 1, commitDeadline: 106, revealDeadline: 112 }) }))
    expect(seedless.waitingFor).toBe('verifiers to commit: 1 of 2, until block 106 (6 blocks left); 1 of the 3 drawn missed the seed window and may not vote this round')
    const seedlessDone = explainJob(facts({ chain: chain({ status: 'Submitted', assigned: 3, seeds: 2, voters: 2, commits: 2, commitDeadline: 106, revealDeadline: 112 }) }))
    // with every voter committed, the reveals open when the commit window closes (the seedless one never commits)
    expect(seedlessDone.waitingFor).toBe('the commit window to close, until block 106 (6 blocks left): 2 committed and 1 of the 3 drawn missed the seed window and may not vote this round; then they reveal')
    const revealing = explainJob(facts({ chain: chain({ status: 'Submitted', assigned: 3, commits: 3, reveals: 2, commitDeadline: 99, revealDeadline: 104 }) }))
    expect(revealing.waitingFor).toBe('verifiers to reveal: 2 of 3, until block 104 (4 blocks left)')
    const released = explainJob(facts({ chain: chain({ status: 'Released' }), finalizer: peers[1].peerId }))
    expect(released.phase).toBe('released')
    // a settled job's deadlines are history: no "commit by" line once it left Submitted
    const settled = explainJob(facts({ chain: chain({ status: 'Released', assigned: 3, commits: 3, reveals: 3, commitDeadline: 99, revealDeadline: 104 }) }))
    expect(settled.lines.find(l => l.startsWith('verifiers drawn'))).toBe('verifiers drawn 3/3, committed 3, revealed 3')
    expect(released.lines).toContain('finalized by 12D3KooW…BBBB')
  })

  it('a released job whose round doc this node could not catch up still counts every MicroJob done (it said "0 of 32")', () => {
    // describe from a DApp's client after the processors retired the job: the doc it opens holds no result
    const released = explainJob(facts({ progress: { done: 0, total: 8, macros: [] }, chain: chain({ status: 'Released' }) }))
    expect(released.lines).toContain('progress: 8 of 8 MicroJobs done (results on chain)')
    const submitted = explainJob(facts({ progress: { done: 5, total: 8, macros: [] }, chain: chain({ status: 'Submitted', assigned: 3 }) }))
    expect(submitted.lines).toContain('progress: 8 of 8 MicroJobs done (results on chain)')
    // an open job's count is the doc's
    expect(explainJob(facts({ progress: { done: 3, total: 8, macros: [] }, chain: chain({}) })).lines).toContain('progress: 3 of 8 MicroJobs done')
  })

  it('says when the peers gave a job up because its MicroJobs fail everywhere', () => {
    const failures = { attempts: 6, peers: 2, reasons: ['WasmTrapError'], failed: false }
    const failing = explainJob(facts({ progress: { done: 1, total: 8, macros: [], failures }, chain: chain({}) }))
    expect(failing.phase).toBe('processing')
    expect(failing.lines).toContain('6 failed MicroJob attempts on 2 peers (WasmTrapError)')
    const failed = explainJob(facts({ progress: { done: 1, total: 8, macros: [], failures: { ...failures, failed: true } }, chain: chain({}) }))
    expect(failed.phase).toBe('failed')
    expect(failed.waitingFor).toBe('nothing: its MicroJobs failed 6 times on 2 peers (WasmTrapError) and the peers gave it up; the creator can refund after the deadline')
    expect(failed.lines).toContain('6 failed MicroJob attempts on 2 peers (WasmTrapError): the peers gave the job up')
  })

  it('time limits with results landing: still processing (faster peers may complete it); released, the job did not fail', () => {
    const failures = { attempts: 4, peers: 3, reasons: ['ExecutionTimeoutError'], failed: true }
    const slow = explainJob(facts({ progress: { done: 17, total: 32, macros: [], failures }, chain: chain({}) }))
    expect(slow.phase).toBe('processing')
    expect(slow.lines).toContain('4 failed MicroJob attempts on 3 peers (ExecutionTimeoutError): peers whose runs ran out of time gave the job up; the others may still complete it')
    // fetch errors are not time limits: the story names them (it said the runs ran out of time)
    const unread = explainJob(facts({ progress: { done: 16, total: 32, macros: [], failures: { ...failures, attempts: 6, peers: 4, reasons: ['ContentFetchError', 'WasmTrapError'] } }, chain: chain({}) }))
    expect(unread.phase).toBe('processing')
    expect(unread.lines).toContain('6 failed MicroJob attempts on 4 peers (ContentFetchError, WasmTrapError): peers that could not fetch what a run reads (ContentFetchError) gave the job up; the others may still complete it')
    const both = explainJob(facts({ progress: { done: 16, total: 32, macros: [], failures: { ...failures, reasons: ['ContentTimeoutError', 'ExecutionTimeoutError'] } }, chain: chain({}) }))
    expect(both.lines).toContain('4 failed MicroJob attempts on 3 peers (ContentTimeoutError, ExecutionTimeoutError): peers whose runs ran out of time or that could not fetch what a run reads (ContentTimeoutError) gave the job up; the others may still complete it')
    // nothing finished anywhere: a module that loops
    expect(explainJob(facts({ progress: { done: 0, total: 32, macros: [], failures }, chain: chain({}) })).phase).toBe('failed')
    const released = explainJob(facts({ progress: { done: 32, total: 32, macros: [], failures }, chain: chain({ status: 'Released' }) }))
    expect(released.phase).toBe('released')
    expect(released.lines).toContain('4 failed MicroJob attempts on 3 peers (ExecutionTimeoutError): some peers gave the job up, the others completed it')
  })

  it('a funded job no peer saw announced: says that a new submit would be another job, and that the fee comes back by a refund after the deadline', () => {
    const story = explainJob(facts({ announced: undefined, chain: chain({}) }))
    expect(story.phase).toBe('open')
    expect(story.waitingFor).toMatch(/^an announcement: the job is funded on chain but no peer has seen it announced/)
    expect(story.waitingFor).toContain('a new submit creates and pays for another job')
    expect(story.waitingFor).toContain(`refund after its deadline (${new Date(2_000_000_000 * 1000).toISOString()}) (jobmesh-dapp refund ${jobId})`)
  })

  it('a funded job a node connected to no peer does not see announced: not known there, no refund advice (it said nobody announced it)', () => {
    const note = 'this node is connected to no peer: ...'
    const story = explainJob(facts({ announced: undefined, chain: chain({}), peers: [], unconnected: true, notes: [note] }))
    expect(story.phase).toBe('open')
    expect(story.waitingFor).toBe('not known here: this node is connected to no peer, so it cannot tell whether the peers saw the job announced or work on it (see the note)')
    expect(story.lines).toContain(`note: ${note}`)
    // what the peers announced and did, when this node kept it from earlier connections, is still told
    expect(explainJob(facts({ chain: chain({}), peers: fit, unconnected: true })).waitingFor).toMatch(/^a peer to start it/)
  })

  it('with the chain unread, says that what the job waits for is not known (it said "a peer to start it")', () => {
    const unread = explainJob(facts({ chainUnread: true, notes: ['the chain could not be read (ChainTimeoutError: eth_blockNumber got no answer within 15000 ms)'], progress: { done: 0, total: 8, macros: [] } }))
    expect(unread.phase).toBe('open')
    expect(unread.chainUnread).toBe(true)
    expect(unread.waitingFor).toBe('not known while the chain cannot be read (see the note): what the job waits for depends on its escrow state (0 of 8 MicroJobs done)')
    expect(unread.lines).toContain('note: the chain could not be read (ChainTimeoutError: eth_blockNumber got no answer within 15000 ms)')
    const neither = explainJob({ jobId, peers: [], chainUnread: true })
    expect([neither.phase, neither.waitingFor]).toEqual(['unknown', 'not known while the chain cannot be read (see the note): what the job waits for depends on its escrow state; no peer this node sees announced it'])
    expect(explainJob(facts({ progress: { done: 0, total: 8, macros: [] } })).chainUnread).toBeUndefined()
    // not read yet (a start, no error): no phase guessed (a released job's badge read PROCESSING until the first read)
    const pending = explainJob(facts({ chainUnread: true, chainPending: true, notes: ['the chain has not been read yet'], progress: { done: 8, total: 8, macros: [] } }))
    expect([pending.phase, pending.waitingFor]).toEqual(['unknown', 'not known yet: this node is reading the job on chain'])
  })

  it('says when nothing is known and when the deadline has passed', () => {
    expect(explainJob({ jobId, peers: [] }).phase).toBe('unknown')
    const late = explainJob(facts({ chain: chain({ deadline: 1_000 }), now: 2_000_000 }))
    expect(late.waitingFor).toContain('deadline has passed')
    // as jobmesh status says of it: expired, not open (the dashboard's badge showed OPEN)
    expect(late.phase).toBe('expired')
    // by the chain's clock, which the escrow reads the deadline against (a devnet's clock moved ahead of this
    // machine's): expired by it, though not yet by this machine's
    const deadline = Math.floor(Date.now() / 1000) + 3_600
    expect(explainJob(facts({ chain: chain({ deadline, chainTime: deadline + 1 }) })).phase).toBe('expired')
    expect(explainJob(facts({ chain: chain({ deadline, chainTime: deadline - 1 }) })).phase).not.toBe('expired')
    // submitted with no verifier drawn by the deadline: no draw starts after it, only a refund can follow
    const undrawn = explainJob(facts({ chain: chain({ status: 'Submitted', assigned: 0, deadline, chainTime: deadline + 1, activeNodes: 2 }) }))
    expect([undrawn.phase, undrawn.waitingFor]).toEqual(['expired', `nothing will happen: its deadline passed before any verifier was drawn (no draw starts after it); the creator can refund (jobmesh-dapp refund ${jobId})`])
    // its verifiers drawn, the verification goes on past the deadline
    expect(explainJob(facts({ chain: chain({ status: 'Submitted', assigned: 3, deadline, chainTime: deadline + 1 }) })).phase).not.toBe('expired')
    // within the last 3 minutes the peers start nothing more of it: said, not "a peer that can take it"
    const cutOff = explainJob(facts({ chain: chain({ deadline, chainTime: deadline - 100 }), progress: { done: 3, total: 8, macros: [] } }))
    expect(cutOff.waitingFor).toBe(`nothing will happen: it is too close to its deadline (${new Date(deadline * 1000).toISOString()}), and the peers ` +
      'stop working on a job 3 minutes before it (3 of 8 MicroJobs done); the creator can refund after the deadline')
    expect(explainJob(facts({ chain: chain({ deadline, chainTime: deadline - 200 }), progress: { done: 3, total: 8, macros: [] } })).waitingFor).toMatch(/^5 more MicroJobs/)
  })
})

describe('which registered nodes a job\'s matching counts', () => {
  it('neither a paused, an exiting, a kicked-out nor an unscored node, each named as such: the dashboard and describe count alike', () => {
    const none = { registered: true, paused: false, exiting: false, kickedOut: false, score: 1000n }
    expect(outOfDraw(none)).toBeUndefined()
    // registered and idle, but at QoS score 0 (a verification it missed): weight 0, no draw picks it before a probe
    expect(outOfDraw({ ...none, score: 0n })).toBe('unscored')
    expect(outOfDraw({ ...none, score: 0n, paused: true })).toBe('paused')
    expect(outOfDraw({ ...none, score: 0n, registered: false })).toBeUndefined()
    expect(outOfDraw({ ...none, paused: true })).toBe('paused')
    // an exiting node is not paused: its next start does not bring it back
    expect(outOfDraw({ ...none, exiting: true })).toBe('exiting')
    expect(outOfDraw({ ...none, kickedOut: true, paused: true })).toBe('kicked-out')
    const peers = ['exiting', 'kicked-out', 'paused', 'unscored', undefined].map((out, i) => ({ peerId: String(i), gpuModel: 'Any', vramGb: 8, out: out as OutOfDraw | undefined }))
    const m = matchPeers({ minVramGb: 0 }, peers)
    expect(m.byPeer.map(p => p.reasons)).toEqual([['exiting'], ['kicked-out'], ['paused'], ['unscored'], []])
    expect(m.summary).toBe('1 of 5 peers matches (needs any hardware): 1 is paused or not eligible on the registry; ' +
      '1 is leaving the registry (exiting); 1 was kicked out of the registry; 1 is at QoS score 0, not drawn until a probe scores it (about a minute after it runs)')
  })
})
