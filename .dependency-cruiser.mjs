// The import graph of src/ (`npm run lint`, so `npm test`): no circles, and no import against the
// layers of docs/architecture.md (Layout). LAYERS says what each folder may import of ours
// besides its own files: a folder (`domain`) or one module (`serving/dataset.ts`). cli/, app.ts
// and config.ts are the composition and may import anything; nothing imports them.
// Every import counts, type-only ones too.

const LAYERS = {
  domain: [],
  runtime: [],
  kernel: [],
  store: ['domain', 'runtime', 'kernel'],
  access: ['store', 'kernel'],
  sources: ['domain', 'kernel'],
  serving: ['domain', 'store', 'kernel'],
  tools: ['domain', 'serving/dataset.ts', 'serving/coverage.ts', 'serving/screen.ts', 'kernel'],
  wire: ['domain', 'kernel'],
  refresh: ['domain', 'store', 'sources', 'serving', 'runtime', 'kernel'],
  oauth: ['access', 'store/oauth-store.ts', 'store/access-store.ts', 'tools/registry.ts', 'kernel'],
  http: ['domain', 'wire', 'tools', 'access', 'oauth', 'serving/dataset.ts', 'serving/coverage.ts', 'serving/holder.ts', 'store/outage.ts', 'kernel'],
};

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const target = (entry) => (entry.endsWith('.ts') ? `^src/${escape(entry)}$` : `^src/${escape(entry)}/`);

export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module may not reach itself through its imports (type-only ones included).',
      from: {},
      to: { circular: true },
    },
    ...Object.entries(LAYERS).map(([folder, may]) => ({
      name: `layer-${folder}`,
      severity: 'error',
      comment: may.length
        ? `src/${folder} may import only ${may.join(', ')} of ours (docs/architecture.md, Layout)`
        : `src/${folder} imports nothing of ours outside itself (docs/architecture.md, Layout)`,
      from: { path: `^src/${folder}/` },
      to: { path: '^src/', pathNot: [`^src/${folder}/`, ...may.map(target)] },
    })),
    {
      name: 'composition-only',
      severity: 'error',
      comment: 'cli/, app.ts and config.ts wire the rest: nothing in a layer imports them (docs/architecture.md, Layout)',
      from: { path: '^src/(?!cli/|app\\.ts$|config\\.ts$)' },
      to: { path: '^src/(cli/|app\\.ts$|config\\.ts$)' },
    },
  ],
  options: {
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
