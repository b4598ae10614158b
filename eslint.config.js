import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/** One `no-restricted-imports` block per folder depth: `up` is the regex of the climb to packages/peer/src. */
function folderEntryRules (levels) {
  return levels.map(({ files, ignores = [], up }) => ({
    files,
    ignores,
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          regex: `^${up}[^/.][^/]*/(?!index\\.js$)`,
          message: 'Enter another folder through its index.ts: import from `<folder>/index.js`.'
        }]
      }]
    }
  }))
}

export default tseslint.config(
  {
    ignores: ['**/dist/**', '.jobmesh/**', 'coverage/**', '**/node_modules/**', 'bench/out/**', 'examples/assembly/**', 'examples/build/**',
      'packages/contracts/out/**', 'packages/contracts/cache/**', 'packages/*/src/**/*.generated.ts',
      'packages/peer/src/**/pb/*.ts']
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/explicit-function-return-type': ['error', { allowExpressions: true }]
    }
  },
  {
    // Node holds an AbortSignal.timeout only weakly: inside AbortSignal.any (ours or a library's) it never fires once
    // a garbage collection ran (nodejs/node#57736). The packages use timeoutSignal / anySignal of @jobmesh/contracts.
    files: ['packages/*/src/**/*.ts', 'examples/src/**/*.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'AbortSignal', property: 'timeout', message: 'use timeoutSignal or anySignal from @jobmesh/contracts (nodejs/node#57736)' }]
    }
  },
  {
    // Libraries never print: only the CLI talks to people.
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/*/src/cli/**'],
    rules: { 'no-console': 'error' }
  },
  // A folder of @jobmesh/peer is entered through its index.ts: code elsewhere in the package imports
  // `../<folder>/index.js`, never a file behind it (docs/architecture.md, "Entry points").
  ...folderEntryRules([
    { files: ['packages/peer/src/*.ts'], up: '\\./' },
    { files: ['packages/peer/src/*/*.ts'], up: '\\.\\./' },
    { files: ['packages/peer/src/*/*/*.ts'], up: '\\.\\./\\.\\./' }
  ]),
  {
    // the dashboard: plain ES modules served to the browser
    files: ['packages/peer/dashboard/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { '@typescript-eslint/explicit-function-return-type': 'off' }
  },
  {
    files: ['**/test/**/*.ts', '**/test/**/*.js', 'bench/**', 'examples/**', '**/scripts/**', '**/*.config.*'],
    rules: { '@typescript-eslint/explicit-function-return-type': 'off' }
  }
)
