#!/usr/bin/env node
import './polyfill.js'
import { constants } from 'node:os'
import { ignoreClosedStdout } from './closed-stdout.js'
import { endCommand } from './command-end.js'
import { interruptWhileLoading } from './signals.js'

// `jobmesh status | head`: a reader that stops early ends the output, not the command
ignoreClosedStdout()

// Ctrl-C (or SIGTERM) while the program loads: nothing was started yet; the command's action removes this handler
interruptWhileLoading((signal: NodeJS.Signals): void => {
  process.stderr.write('interrupted: nothing was started\n')
  // with --json a script reads one document on stdout, this failure too
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: { name: 'InterruptedError', message: `interrupted (${signal}): nothing was started`, signal } })}\n`)
  process.exit(128 + constants.signals[signal])
})
const { run } = await import('./program.js')
endCommand(await run(process.argv))
