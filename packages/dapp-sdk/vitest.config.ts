// Runs the SDK tests with @jobmesh/peer aliased to test/peer-shim.ts (see there). Once @jobmesh/peer exports its
// node, CRDT, coordination and processor modules, the root vitest.config.ts suffices.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url))

export default defineConfig({
  resolve: {
    alias: {
      '@jobmesh/contracts': here('../contracts/src/index.ts'),
      '@jobmesh/peer': here('./test/peer-shim.ts'),
      '@jobmesh/dapp-sdk': here('./src/index.ts')
    }
  },
  test: {
    root: here('../..'),
    include: ['packages/dapp-sdk/test/**/*.test.ts'],
    setupFiles: [here('../../test/setup.ts')],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
