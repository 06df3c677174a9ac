// Lint is part of `npm test`. typescript-eslint's recommended set plus the rules that keep
// the API surface honest: no explicit `any`, no floating promises in the server code.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * One `no-restricted-imports` block per folder of src/ and depth of file in it: an import that
 * leaves the folder (`../` from src/x/, `../../` from src/x/y/, and so on) must name one of the folders
 * (`domain`) or modules (`tools/errors.js`) the folder may import.
 */
function layerRules(allowed) {
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return Object.entries(allowed).flatMap(([folder, may]) => {
    const alternatives = may.map((m) => (m.endsWith('.js') ? `${escape(m)}$` : `${escape(m)}/`));
    const message = may.length
      ? `src/${folder} may import only ${may.join(', ')} of ours (docs/architecture.md, Layout)`
      : `src/${folder} imports nothing of ours outside itself (docs/architecture.md, Layout)`;
    return [
      ['*.ts', '../'],
      ['*/*.ts', '../../'],
      ['*/*/*.ts', '../../../'],
    ].map(([files, up]) => ({
      files: [`src/${folder}/${files}`],
      rules: {
        'no-restricted-imports': ['error', { patterns: [{ regex: `^${escape(up)}${alternatives.length ? `(?!${alternatives.join('|')})` : ''}`, message }] }],
      },
    }));
  });
}

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
  // The layers (docs/architecture.md, "Layout"): what each folder of src/ may import of ours
  // besides its own files. cli/, app.ts and compose.ts, the composition, may import anything.
  ...layerRules({
    domain: [],
    runtime: [],
    store: ['domain', 'runtime'],
    access: ['store'],
    sources: ['domain', 'access/clock.js'],
    serving: ['domain', 'store', 'runtime', 'tools/errors.js', 'access/clock.js'],
    tools: ['domain', 'serving/dataset.js', 'serving/coverage.js', 'access/clock.js'],
    refresh: ['domain', 'store', 'sources', 'runtime', 'access/clock.js'],
    oauth: ['access', 'store/oauth-store.js', 'store/access-store.js', 'tools/registry.js'],
    http: ['domain', 'tools', 'access', 'oauth', 'serving/dataset.js', 'serving/coverage.js', 'serving/holder.js', 'store/outage.js'],
  }),
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
