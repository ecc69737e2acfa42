// `npm run lint`: ESLint with typescript-eslint over every TypeScript file of the project (read-only;
// `npm run lint:fix` applies the safe fixes). The layer rule: build/ and server/ never import each other; what
// both need lives in src/ (test/import-graph.test.ts checks the same rule, and that there is no import cycle).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// A spread puts every element on the stack: over a whole catalog's array it throws "Maximum call stack size
// exceeded" (rows.push(...sorted) stopped the index stage at a million listings). Loops instead.
const noStackSpreads = [
  {
    selector: "CallExpression[callee.property.name='push'] > SpreadElement",
    message: 'push(...array) puts the array on the stack: loop, or build the array whole.',
  },
  {
    selector: "CallExpression[callee.object.name='Math'][callee.property.name=/^(max|min)$/] > SpreadElement",
    message: 'Math.max/min(...array) puts the array on the stack: use a loop (bench/proof/traffic.ts maxOf/minOf).',
  },
  {
    selector: 'CallExpression[callee.property.name=/^(fromCharCode|fromCodePoint)$/] > SpreadElement',
    message: 'String.fromCharCode(...array) puts the array on the stack: decode with TextDecoder or in chunks.',
  },
];

export default tseslint.config(
  // test/build/audit-fixtures holds planted malicious scripts as data for the audit's tests: not code of ours.
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      '.astro/**',
      '.catalog/**',
      '.catalog-bench/**',
      'scratch/**',
      'coverage/**',
      'data/**',
      'models/**',
      'public/**',
      'test/build/audit-fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      // Unused names that start with _ are deliberate (a destructured field dropped, a callback's ignored argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // A handle assigned after the closures that use it are made (a process, a server) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['build/**/*.ts', 'src/**/*.ts', 'site/**/*.ts', 'bench/**/*.ts', 'packages/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...noStackSpreads] },
  },
  {
    files: ['build/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)server/', message: 'build/ never imports server/: put what both need in src/.' }] }],
    },
  },
  {
    files: ['server/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)build/', message: 'server/ never imports build/: put what both need in src/.' }] }],
      // V8 keeps an object literal's getter in the literal's hidden class, in old space: a literal made per request
      // held every request's objects until a full collection (scavenges 0.4 → 7-9 ms; NodeRequest in http/node-adapter.ts).
      'no-restricted-syntax': [
        'error',
        ...noStackSpreads,
        {
          selector: "ObjectExpression > Property[kind='get']",
          message: 'Use a class with a getter on its prototype: a getter in an object literal keeps what it closes over alive until a full GC.',
        },
      ],
    },
  },
  {
    // The request pipeline and the search engine stay made of named parts: a function past 60 lines is a part
    // that wants a name of its own. Comments and blank lines do not count, so a why is never cut to fit.
    files: ['server/http/**/*.ts', 'src/search/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
);
