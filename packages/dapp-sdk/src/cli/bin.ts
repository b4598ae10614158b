#!/usr/bin/env node
import '@jobmesh/peer/polyfill'
import { ignoreClosedStdout } from '@jobmesh/peer/closed-stdout'
import { endCommand } from '@jobmesh/peer/command-end'
// io.js loads nothing else: the handler below is in place within the first moment, before the program's libraries load
import { interruptedExitCode, interruptUntilCommand } from './io.js'

// `jobmesh-dapp ... | head`: a reader that stops early ends the output, not the command
ignoreClosedStdout()

// Ctrl-C (or SIGTERM) while the program loads and parses its flags: nothing was sent yet. The command's own handler
// replaces this one when it runs (`interruptUntilCommand`): before 2026-11-30 this one was removed once the program
// had loaded, and a Ctrl-C in the few ms until the command's came was lost, and `submit` went on to pay
interruptUntilCommand((signal: NodeJS.Signals): void => {
  process.stderr.write('interrupted: nothing was sent\n')
  // with --json a script reads one document on stdout, this failure too
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: { name: 'InterruptedError', message: `interrupted (${signal}): nothing was sent`, signal } })}\n`)
  process.exit(interruptedExitCode(signal))
})
const { run } = await import('./program.js')
endCommand(await run(process.argv.slice(2)))
