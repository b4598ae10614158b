#!/usr/bin/env node
import '@jobmesh/peer/polyfill'
import { ignoreClosedStdout } from '@jobmesh/peer/closed-stdout'
import { endCommand } from '@jobmesh/peer/command-end'
import { interruptedExitCode } from './interrupt.js'
import { INTERRUPT_SIGNALS } from './io.js'

// `jobmesh-dapp ... | head`: a reader that stops early ends the output, not the command
ignoreClosedStdout()

// Ctrl-C (or SIGTERM) while the program loads: nothing was sent yet (a command installs its own handler once it runs)
const whileLoading = (signal: NodeJS.Signals): void => {
  process.stderr.write('interrupted: nothing was sent\n')
  process.exit(interruptedExitCode(signal))
}
for (const signal of INTERRUPT_SIGNALS) process.once(signal, whileLoading)
const { run } = await import('./program.js')
for (const signal of INTERRUPT_SIGNALS) process.off(signal, whileLoading)
endCommand(await run(process.argv.slice(2)))
