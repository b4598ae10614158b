import { describe, expect, it } from 'vitest'
import { attachPeerEvents } from '../../src/observe/attach-events.js'
import { EventLog } from '../../src/observe/event-log.js'
import type { OwnPause } from '../../src/settlement/stay-in-draw.js'

describe('what an operator reads when the registry pauses the running node', () => {
  const lines = (pause: OwnPause): Array<{ level: string, text: string }> => {
    const settlement = new EventTarget()
    const log = new EventLog()
    const detach = attachPeerEvents({ settlement }, log)
    settlement.dispatchEvent(new CustomEvent('paused', { detail: pause }))
    detach()
    return log.recent().map(e => ({ level: e.level, text: e.text }))
  }

  it('a resume after a missed verification task or probe is an info line naming both blocks', () => {
    expect(lines({ cause: 'task', pausedBlock: 120, inARow: 1, outcome: 'resumed', txHash: '0x01', blockNumber: 122 })).toEqual([{
      level: 'info', text: 'missed a verification task, so the registry paused this node in block 120: resumed in block 122'
    }])
    expect(lines({ cause: 'probe', pausedBlock: 7, inARow: 2, outcome: 'resumed', txHash: '0x02', blockNumber: 9 })[0].text)
      .toBe('missed a probe, so the registry paused this node in block 7: resumed in block 9')
  })

  it('a node that stays paused says so as an error (stderr), with why and what to do', () => {
    const [line] = lines({ cause: 'task', pausedBlock: 300, inARow: 3, outcome: 'stayed' })
    expect(line.level).toBe('error')
    expect(line.text).toMatch(/^missed a verification task, so the registry paused this node in block 300 \(3 pauses in a row with no task scored between\): it stays out of the verifier draw/)
    expect(line.text).toContain('restart the peer to resume it')
  })
})
