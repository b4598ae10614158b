import { afterEach, describe, expect, it } from 'vitest'
import { INTERRUPT_SIGNALS, interruptUntilCommand, processIo } from '../src/cli/io.js'

// no signal is raised here (process.emit would run every listener of this shared worker: other files' cleanups):
// what is checked is which handler the process holds at each step
const ours: Array<(signal: NodeJS.Signals) => void> = []
afterEach(() => {
  for (const h of ours.splice(0)) for (const s of INTERRUPT_SIGNALS) process.off(s, h)
})

function handler (): (signal: NodeJS.Signals) => void {
  const h = (): void => {}
  ours.push(h)
  return h
}

describe('the CLI\'s interrupt handlers: the loading one until the command\'s, with no moment between', () => {
  it('the loading handler holds SIGINT and SIGTERM until a command registers its own, which replaces it in one step', () => {
    const loading = handler()
    interruptUntilCommand(loading)
    // the program has loaded, the command has not registered yet: the loading handler still holds both signals
    for (const s of INTERRUPT_SIGNALS) expect(process.listeners(s)).toContain(loading)

    const command = handler()
    const off = processIo.onInterrupt?.(command)
    for (const s of INTERRUPT_SIGNALS) {
      expect(process.listeners(s)).toContain(command)
      expect(process.listeners(s)).not.toContain(loading)
    }
    off?.()
    for (const s of INTERRUPT_SIGNALS) expect(process.listeners(s)).not.toContain(command)
  })
})
