#!/usr/bin/env node
import '@jobmesh/peer/polyfill'
import { ignoreClosedStdout } from '@jobmesh/peer/closed-stdout'
import { EXIT_INTERRUPTED } from './interrupt.js'

// `jobmesh-dapp ... | head`: a reader that stops early ends the output, not the command
ignoreClosedStdout()

// Ctrl-C while the program loads: nothing was sent yet (a command installs its own handler once it runs)
const whileLoading = (): void => {
  process.stderr.write('interrupted: nothing was sent\n')
  process.exit(EXIT_INTERRUPTED)
}
process.once('SIGINT', whileLoading)
const { run } = await import('./program.js')
process.off('SIGINT', whileLoading)
process.exitCode = await run(process.argv.slice(2))
