import { afterEach, describe, expect, it } from 'vitest'
import { INTERRUPT_SIGNALS, interruptUntilCommand, processIo } from '../src/cli/io.js'

const ours: Array<(signal: NodeJS.Signals) => void> = []
afterEach(() => {
  for (const h of ours.splice(0)) for (const s of INTERRUPT_SIGNALS) process.off(s, h)
})

function handler (calls: string[], name: string): (signal: NodeJS.Signals) => void {
  const h = (signal: NodeJS.Signals): void => { calls.push(`${name} ${signal}`) }
  ours.push(h)
  return h
}

describe('the CLI\'s interrupt handlers: the loading one until the command\'s, with no moment between', () => {
  it('a command\'s handler replaces the loading one at once; a signal between the two always finds one of them', () => {
    const calls: string[] = []
    const loading = handler(calls, 'loading')
    interruptUntilCommand(loading)
    for (const s of INTERRUPT_SIGNALS) expect(process.listeners(s)).toContain(loading)
    // the program has loaded, the command has not registered yet: the loading handler still answers
    process.emit('SIGINT', 'SIGINT')
    expect(calls).toEqual(['loading SIGINT'])

    const command = handler(calls, 'command')
    const off = processIo.onInterrupt?.(command)
    for (const s of INTERRUPT_SIGNALS) {
      expect(process.listeners(s)).toContain(command)
      expect(process.listeners(s)).not.toContain(loading)
    }
    process.emit('SIGTERM', 'SIGTERM')
    expect(calls).toEqual(['loading SIGINT', 'command SIGTERM'])
    off?.()
    for (const s of INTERRUPT_SIGNALS) expect(process.listeners(s)).not.toContain(command)
  })
})
