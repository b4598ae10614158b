// Node 20 lacks Promise.withResolvers, which libp2p 3 and helia 7 use: the tests load the same polyfill the
// entry points (CLI, demo) load; library modules never polyfill.
import '../packages/peer/src/cli/polyfill.js'
