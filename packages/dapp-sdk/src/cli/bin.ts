#!/usr/bin/env node
import '@jobmesh/peer/polyfill'

const { run } = await import('./program.js')
process.exitCode = await run(process.argv.slice(2))
