// Runs the test files under test/ with Node's own test runner (TypeScript through tsx).
// Node 20's `--test` takes no globs, so the files are listed here.
//
// Two tiers, chosen by directory:
// - `npm test` (no flag): every file under test/, one file at a time; the gate CI runs.
// - `npm run test:unit` (`--unit`): the files under UNIT_DIRS, a file per core: the pure
//   domain, the source adapters (recorded answers on loopback), the store, access control,
//   the tools and both doors through Fastify's inject(). No service process, no door on a
//   socket, no kill rounds, no load, no browser: those live in the other directories.
// Extra arguments (file paths or a --test-name-pattern) are passed through; given file paths,
// only those files run.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const UNIT_DIRS = ['test/domain', 'test/sources', 'test/store', 'test/access', 'test/tools', 'test/http'];

function testFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const unit = process.argv.includes('--unit');
const args = process.argv.slice(2).filter((a) => a !== '--unit');
const files = args.some((a) => a.endsWith('.ts')) ? [] : unit ? UNIT_DIRS.flatMap(testFiles) : testFiles('test');
// Node's default is one file per core but one (one at a time on 2 cores). The unit tier's files
// share nothing (each its own temp dir or schema) and wait on I/O, so it runs one per core, two
// at least.
const concurrency = unit ? [`--test-concurrency=${Math.max(2, availableParallelism())}`] : [];
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', ...concurrency, '--test-reporter', process.env.TEST_REPORTER ?? 'tap', ...args, ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
