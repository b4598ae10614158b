import { failedForCertain } from '@jobmesh/peer/coord'
import { describe, expect, it } from 'vitest'
import { failedForGood } from '../src/progress.js'

const failed = (reasons: string[]): { failed: boolean, reasons: string[] } => ({ failed: true, reasons })

describe('when a failed state ends a job\'s progress', () => {
  it('failures of the module\'s own, or no result at all, are beyond doubt', () => {
    expect(failedForCertain(failed(['WasmTrapError']), 17)).toBe(true)
    expect(failedForCertain(failed(['InvalidWasmError', 'MemoryLimitError']), 3)).toBe(true)
    // a module that loops: nothing ever finished
    expect(failedForCertain(failed(['ExecutionTimeoutError']), 0)).toBe(true)
    // time limits on loaded machines while results land: faster peers may complete it
    expect(failedForCertain(failed(['ExecutionTimeoutError']), 17)).toBe(false)
    expect(failedForCertain(failed(['ExecutionTimeoutError', 'WasmTrapError']), 17)).toBe(false)
    expect(failedForCertain({ failed: false, reasons: ['WasmTrapError'] }, 0)).toBe(false)
  })

  it('a doubtful failed state ends the progress only after a quiet time without a new result', () => {
    const timeouts = failed(['ExecutionTimeoutError'])
    expect(failedForGood(timeouts, 17, 0, 120_000)).toBe(false)
    expect(failedForGood(timeouts, 17, 119_999, 120_000)).toBe(false)
    expect(failedForGood(timeouts, 17, 120_000, 120_000)).toBe(true)
    expect(failedForGood(failed(['WasmTrapError']), 17, 0, 120_000)).toBe(true)
    expect(failedForGood({ failed: false, reasons: ['ExecutionTimeoutError'] }, 17, 1e9, 120_000)).toBe(false)
  })
})
