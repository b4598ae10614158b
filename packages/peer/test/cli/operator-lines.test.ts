import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { dutyLines, printPeerEvents } from '../../src/cli/operator-lines.js'
import { EventLog, attachPeerEvents } from '../../src/observe/index.js'

function sink (): { stream: PassThrough, text: () => string } {
  const stream = new PassThrough()
  const chunks: string[] = []
  stream.on('data', (c: Buffer) => chunks.push(c.toString()))
  return { stream, text: () => chunks.join('') }
}

describe('operator lines', () => {
  it('tells a job complete only where this peer ran MicroJobs of it or finalizes it (not old jobs a restart finds done)', () => {
    const log = new EventLog()
    const processor = new EventTarget()
    const detach = attachPeerEvents({ processor: processor as never }, log)
    const emit = (type: string, detail: unknown): void => { processor.dispatchEvent(new CustomEvent(type, { detail })) }
    const [old, ran, mine] = ['0x' + '01'.repeat(32), '0x' + '02'.repeat(32), '0x' + '03'.repeat(32)]
    emit('job:complete', { jobId: old, finalizer: false })
    emit('microjob:start', { jobId: ran, macroIndex: 0, index: 0, leaseTerm: 1, waitMs: 0, claimToStartMs: 0 })
    emit('job:complete', { jobId: ran, finalizer: false })
    emit('job:complete', { jobId: mine, finalizer: true })
    expect(log.recent().map(e => e.text)).toEqual(['job 0x020202…0202: every MicroJob done', 'job 0x030303…0303: every MicroJob done, finalizing'])
    detach()
  })

  it('tells a job given up in this run as an error, one a restart finds given up before only among the recent events', () => {
    const log = new EventLog()
    const processor = new EventTarget()
    const detach = attachPeerEvents({ processor: processor as never }, log)
    const out = sink()
    const err = sink()
    const stop = printPeerEvents(log, out.stream, err.stream)
    const emit = (type: string, detail: unknown): void => { processor.dispatchEvent(new CustomEvent(type, { detail })) }
    emit('job:failed', { jobId: '0x' + '05'.repeat(32), attempts: 7, peers: 5, reasons: ['ExecutionTimeoutError'], earlier: true })
    emit('job:failed', { jobId: '0x' + '06'.repeat(32), attempts: 3, peers: 2, reasons: ['WasmTrapError'] })
    // the old one is no line on the terminal, only a recent event of the dashboard
    expect(out.text()).toBe('')
    expect(log.recent()[0]).toMatchObject({ level: 'info', text: 'job 0x050505…0505 stays given up (before this start): its MicroJobs failed 7 times on 5 peers (ExecutionTimeoutError)' })
    expect(err.text().trim().slice(9)).toBe('error gave job 0x060606…0606 up: its MicroJobs failed 3 times on 2 peers (WasmTrapError)')
    stop()
    detach()
  })

  it('prints finalizations, verifications, settlements and claims on stdout and errors on stderr, keeping recent events', () => {
    const log = new EventLog(3)
    const settlement = new EventTarget()
    const detach = attachPeerEvents({ settlement }, log)
    const out = sink()
    const err = sink()
    const stop = printPeerEvents(log, out.stream, err.stream)
    const jobId = '0x' + '12'.repeat(32)
    const emit = (type: string, detail: unknown): void => { settlement.dispatchEvent(new CustomEvent(type, { detail })) }
    emit('finalized', { jobId, outcome: 'submitted', status: 'Open', blockNumber: 42 })
    emit('finalized', { jobId, outcome: 'already', status: 'Submitted' })
    emit('finalized', { jobId, outcome: 'submitted', status: 'Open', blockNumber: 43, round: 1, copiers: ['12D3KooWCopierCopierCopier'], fakers: ['12D3KooWFakerFakerFakerFak'] })
    emit('verified', { jobId, positions: [1, 3], outputHashes: [], expected: [], firstBad: -1, processorBlame: false, revealed: true })
    emit('settled', { jobId, status: 'Released', released: true, rejected: false })
    emit('claimed', { jobId, claimed: 2n * 10n ** 17n, withdrawn: 10n ** 18n / 15n })
    emit('ended', { jobId, status: 'Released' })
    emit('ended', { jobId: '0x' + '34'.repeat(32), status: 'Refunded' })
    emit('error', { jobId, step: 'claim', error: Object.assign(new Error('execution reverted'), { name: 'ChainRevertError' }) })
    const lines = out.text().trim().split('\n').map(l => l.slice(9))
    expect(lines).toEqual([
      'finalized job 0x121212…1212: results submitted in block 42',
      'job 0x121212…1212: nothing to submit here, it is Submitted already',
      'finalized job 0x121212…1212: results submitted in block 43 (round 1); not paid, signed other peers\' results as their own: 12D3KooW…pier; not paid, signed outputs a re-run did not give: 12D3KooW…rFak',
      'verified job 0x121212…1212 as a drawn verifier: re-ran 2 sampled MicroJobs, revealed',
      'settled job 0x121212…1212: released: processors and verifiers can claim',
      'claimed 0.266667 ETH for job 0x121212…1212 (payout 0.2, credits 0.066667)'
    ])
    expect(err.text()).toMatch(/^\d\d:\d\d:\d\d error claim of job 0x121212…1212 failed: ChainRevertError: execution reverted\n$/)
    // a refund (of any job the chain refunds) is a line of the dashboard's recent events, not of the operator's stdout
    expect(log.recent().map(e => e.kind)).toEqual(['claimed', 'refunded', 'error'])
    expect(log.recent()[1].text).toBe('job 0x343434…3434 refunded: its fee went back to its creator')
    expect(log.recent().map(e => e.seq)).toEqual([6, 7, 8])
    stop()
    detach()
    emit('settled', { jobId, status: 'Released', released: true, rejected: false })
    expect(log.recent()).toHaveLength(3)
    expect(out.text().trim().split('\n')).toHaveLength(6)
  })

  it('prints first what was recorded before it started (a model held during the start), then what follows', () => {
    const log = new EventLog()
    log.push({ kind: 'model', level: 'info', text: 'holding model ipfs://bafy (kept with --model)' })
    log.push({ kind: 'peer:connect', level: 'info', text: 'connected to a peer' })
    log.push({ kind: 'model', level: 'error', text: 'cannot fetch model ipfs://bafz yet' })
    const out = sink()
    const err = sink()
    const stop = printPeerEvents(log, out.stream, err.stream)
    log.push({ kind: 'model', level: 'info', text: 'prompted 0xabc to download model ipfs://bafy' })
    stop()
    expect(out.text().trim().split('\n').map(l => l.slice(9))).toEqual([
      'holding model ipfs://bafy (kept with --model)',
      'prompted 0xabc to download model ipfs://bafy'
    ])
    expect(err.text()).toMatch(/^\d\d:\d\d:\d\d error cannot fetch model ipfs:\/\/bafz yet\n$/)
  })

  it('prints a queue turn nobody answered as an error: which room, how long, whose queue', () => {
    const log = new EventLog()
    const processor = Object.assign(new EventTarget(), { metrics: {} }) as unknown as Parameters<typeof attachPeerEvents>[0]['processor']
    const detach = attachPeerEvents({ processor }, log)
    const out = sink()
    const err = sink()
    const stop = printPeerEvents(log, out.stream, err.stream)
    const jobId = '0x' + '34'.repeat(32)
    const owner = '12D3KooWQ5eYFpP3Gk9aFpDqGw5HT2h9xnrAMxWNaWWJ4yC7CzNY'
    processor?.dispatchEvent(new CustomEvent('turn:unanswered', { detail: { jobId, macroIndex: 2, waitedMs: 30_012, owner } }))
    stop()
    detach()
    expect(out.text()).toBe('')
    expect(err.text()).toMatch(/^\d\d:\d\d:\d\d error left the room of MacroJob 2 of job 0x343434…3434: its queue did not answer a turn in 30 s \(owner \S+\)\n$/)
    expect(log.recent().map(e => e.kind)).toEqual(['turn:unanswered'])
  })

  it('prints what the network said (an error of a job, its abort text) as one line, its control characters escaped', () => {
    const log = new EventLog()
    const settlement = new EventTarget()
    const detach = attachPeerEvents({ settlement }, log)
    const out = sink()
    const err = sink()
    const stop = printPeerEvents(log, out.stream, err.stream)
    const jobId = '0x' + '34'.repeat(32)
    const text = '\u001b]0;owned\u0007\u001b[2J\n12:00:00 settled job 0xfake: released'
    settlement.dispatchEvent(new CustomEvent('error', { detail: { jobId, step: 'claim', error: new Error(text) } }))
    const printed = err.text()
    expect(printed.split('\n')).toHaveLength(2)
    expect(printed).not.toContain('\u001b')
    expect(printed).toContain('\\u001b]0;owned\\u0007\\u001b[2J\\u000a12:00:00 settled job 0xfake: released')
    expect(out.text()).toBe('')
    stop()
    detach()
  })

  it('a stop names the settlement duties it keeps for the next start and what a long stop costs; nothing when there are none', () => {
    expect(dutyLines([])).toEqual([])
    const job = '0x' + '0a'.repeat(32)
    const lines = dutyLines([{ kind: 'settle', jobId: job }, { kind: 'verify', jobId: job }])
    expect(lines[0]).toBe('kept for the next start (2 duties; the chain\'s deadlines run while this node is down: start it again soon):')
    expect(lines[1]).toBe(`  job ${job}: the verifier draw of this node's submission, then its proof and settlement; 16 blocks after the draw's ` +
      'entropy block another node may draw it and take the late-draw bounty (5 % of the bond) out of this node\'s stake')
    expect(lines[2]).toContain('costs the verifier\'s bond')
    expect(dutyLines([{ kind: 'finalize', jobId: job }])[1]).toContain('another peer of the job takes it over')
  })
})
