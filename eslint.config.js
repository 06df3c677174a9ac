// Lint is part of `npm test`. typescript-eslint's recommended set plus the rules that keep
// the API surface honest: no explicit `any`, no floating promises in the server code.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'web/dist/**', 'coverage/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's describe/it return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // The layers (docs/architecture.md, "Layout") and the import graph's circles are checked by
  // dependency-cruiser (.dependency-cruiser.mjs, `npm run lint:graph`, part of `npm run lint`).
  {
    // A migration does the same thing forever: it may not call today's code (the derived forms'
    // code, src/domain), only the schema builder, plain SQL and the schema's types. What is
    // derived from the records is rebuilt by src/store/derived.ts when its format changes.
    files: ['src/store/migrations.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['./*', '../*', '!./schema.js'], message: "a migration imports only kysely and the schema's types (./schema.js)" }] }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
