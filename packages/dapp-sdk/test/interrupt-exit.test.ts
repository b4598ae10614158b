import { describe, expect, it } from 'vitest'
import { onInterruptExit, onSubmitInterrupt } from '../src/cli/interrupt.js'
import type { CliIo } from '../src/cli/io.js'

/** An io whose Ctrl-C the test sends: what the command printed and how it exited. */
function io (): CliIo & { stdout: string[], stderr: string[], codes: number[], interrupt: (signal: NodeJS.Signals) => void } {
  let handler: ((signal: NodeJS.Signals) => void) | undefined
  const out = {
    stdout: [] as string[],
    stderr: [] as string[],
    codes: [] as number[],
    out: (l: string) => { out.stdout.push(l) },
    err: (l: string) => { out.stderr.push(l) },
    onInterrupt: (h: (signal: NodeJS.Signals) => void) => { handler = h; return () => { handler = undefined } },
    exit: (code: number) => { out.codes.push(code) },
    interrupt: (signal: NodeJS.Signals) => { handler?.(signal) }
  }
  return out
}

describe('Ctrl-C of a command that only reads', () => {
  it('with --json: the error document, exit 130 (143 for SIGTERM), after the tidy-up', () => {
    const cli = io()
    const tidied: string[] = []
    onInterruptExit(cli, { json: true, tidy: () => { tidied.push('folders') } })
    cli.interrupt('SIGTERM')
    expect(tidied).toEqual(['folders'])
    expect(cli.stderr).toEqual(['interrupted'])
    expect(cli.stdout.map(l => JSON.parse(l) as unknown)).toEqual([{ error: { name: 'InterruptedError', message: 'interrupted (SIGTERM)', signal: 'SIGTERM' } }])
    expect(cli.codes).toEqual([143])
  })

  it('once the outcome is printed, a Ctrl-C while the client stops ends it with 0 and prints no second document', () => {
    const cli = io()
    const run = { json: true, finished: false }
    onInterruptExit(cli, run)
    run.finished = true
    cli.interrupt('SIGINT')
    expect([cli.stdout, cli.stderr, cli.codes]).toEqual([[], [], [0]])
  })
})

describe('Ctrl-C of a submit', () => {
  it('tidies up (the empty --out folders it made) before it exits, at once or on a second Ctrl-C', () => {
    const cli = io()
    const order: string[] = []
    const exit = cli.exit
    cli.exit = (code: number) => { order.push(`exit ${code}`); exit?.(code) }
    const state = { phase: 'preparing' as const }
    onSubmitInterrupt(cli, state, () => { order.push('abort') }, () => { order.push('tidy') })
    cli.interrupt('SIGINT')
    expect(order).toEqual(['abort', 'tidy', 'exit 130'])
    expect(cli.stderr).toEqual(['interrupted: no job was created, nothing was paid'])
    cli.interrupt('SIGINT')
    expect(order).toEqual(['abort', 'tidy', 'exit 130', 'tidy', 'exit 130'])
  })
})
