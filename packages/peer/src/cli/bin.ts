#!/usr/bin/env node
import './polyfill.js'
import { ignoreClosedStdout } from './closed-stdout.js'
import { endCommand } from './command-end.js'

// `jobmesh status | head`: a reader that stops early ends the output, not the command
ignoreClosedStdout()

const { run } = await import('./program.js')
endCommand(await run(process.argv))
