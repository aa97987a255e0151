// Lint rules from docs/architecture.md: typed promise handling, exhaustive switches, strict
// equality, and Nx module boundaries by tag (scope:* and type:*).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

// @nx/enforce-module-boundaries silently skips itself when no project graph is cached: build it
// first (what `nx show projects` does), and refuse to lint without it.
const GRAPH = path.join(import.meta.dirname, '.nx/workspace-data/project-graph.json');
if (!existsSync(GRAPH)) {
  const nxBin = createRequire(import.meta.url).resolve('nx/bin/nx.js');
  execFileSync(process.execPath, [nxBin, 'show', 'projects'], { cwd: import.meta.dirname, stdio: 'ignore' });
  if (!existsSync(GRAPH)) throw new Error(`No Nx project graph at ${GRAPH}: module boundaries cannot be checked. Run \`npx nx show projects\`.`);
}

const scopes = ['gateway', 'chat', 'media', 'audio', 'billing', 'keys', 'wallet'];
/** What every chat, completion or embedding request runs, gateway to engine (docs/architecture.md, "Request flow"). */
const REQUEST_PATH = [
  'apps/gateway/src/{chat,admission,billing,rate-limit,http,auth,abuse,metrics,completions,responses,embeddings}/**/*.ts',
  'apps/chat/src/{chat,engines,routing}/**/*.ts',
  'libs/{messaging,billing-client,headers,errors,pricing}/src/**/*.ts',
];
const TEST_FILES = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/test/**/*.ts', 'e2e/**/*.ts'];

/** Production code may not import the testing lib; test files of any project may. */
const boundaries = (forTests) => [
  'error',
  {
    allow: [],
    depConstraints: [
      ...scopes.map((scope) => ({ sourceTag: `scope:${scope}`, onlyDependOnLibsWithTags: ['scope:shared', `scope:${scope}`] })),
      { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
      ...[
        ['type:app', ['type:contracts', 'type:util', 'type:data-access']],
        ['type:data-access', ['type:contracts', 'type:util', 'type:data-access']],
        ['type:util', ['type:contracts', 'type:util']],
        ['type:contracts', ['type:contracts']],
        ['type:testing', ['type:contracts', 'type:util', 'type:data-access', 'type:testing']],
        ['type:bench', ['type:contracts', 'type:util', 'type:data-access', 'type:testing']],
      ].map(([sourceTag, allowed]) => ({ sourceTag, onlyDependOnLibsWithTags: forTests ? [...allowed, 'type:testing'] : allowed })),
    ],
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'tmp/**', 'coverage/**', '**/generated/**', '.nx/**'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    ignores: ['apps/console/**'],
    extends: [...tseslint.configs.recommended],
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      '@nx/enforce-module-boundaries': boundaries(false),
    },
  },
  { files: TEST_FILES, rules: { '@nx/enforce-module-boundaries': boundaries(true), '@typescript-eslint/no-explicit-any': 'off' } },
  // The code every inference request runs: on Node 20 an object literal that starts with a spread
  // and goes on (`{ ...a, b }`, `{ ...a, ...b }`) costs about 0.5 us per further member, 10-100x
  // the same object built otherwise (docs/architecture.md, "Object spreads on the request path").
  // Refused from three further members on, where one literal costs a request 1.5 us or more.
  {
    files: REQUEST_PATH,
    ignores: TEST_FILES,
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ObjectExpression > SpreadElement:first-child ~ :nth-child(4)',
          message:
            'An object literal that starts with a spread and goes on is slow on Node 20: put a plain member first, or use Object.assign({}, a, { b, c, d }) (docs/architecture.md, "Object spreads on the request path").',
        },
      ],
    },
  },
  // The admin console (React in the browser): its own tsconfig (DOM types), no Nest/Nx imports.
  {
    files: ['apps/console/**/*.{ts,tsx,mts}'],
    extends: [...tseslint.configs.recommended],
    languageOptions: { parserOptions: { project: './apps/console/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
      },
    },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
);
