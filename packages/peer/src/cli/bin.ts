#!/usr/bin/env node
import './polyfill.js'

const { run } = await import('./program.js')
process.exitCode = await run(process.argv)
