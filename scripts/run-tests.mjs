// Runs the test files under test/ with Node's own test runner (TypeScript through tsx).
// Node 20's `--test` takes no globs, so the files are listed here.
//
// Three tiers, chosen by file:
// - `npm run test:unit` (`--unit`): the files under UNIT_DIRS, a file per core: the pure domain,
//   the source adapters (recorded answers on loopback), the store, the read model (serving),
//   access control, the tools, the JSON writer (wire) and both doors through Fastify's inject(). No service process, no
//   door on a socket, no kill rounds, no load, no browser: those live in the other directories.
// - `--gate`: every file under test/ but the slow tier, one file at a time.
// - `npm run test:slow` (`--slow`): SLOW_FILES, the kill rounds and the load tests, minutes each.
// - `npm test` (no flag): the gate, then the slow tier: every file, the run CI makes. The slow
//   tier comes last, so the output ends with its summary; the exit status fails if either did.
// Extra arguments (file paths or a --test-name-pattern) are passed through; given file paths,
// only those files run.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const UNIT_DIRS = ['test/domain', 'test/sources', 'test/store', 'test/serving', 'test/access', 'test/tools', 'test/wire', 'test/http'];
const SLOW_FILES = ['test/cluster/kill.test.ts', 'test/security/load.test.ts'];
const TIERS = ['--unit', '--gate', '--slow'];

function testFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

function run(files, concurrency) {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', ...concurrency, '--test-reporter', process.env.TEST_REPORTER ?? 'tap', ...args, ...files],
    { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
  );
  return result.status ?? 1;
}

const tier = TIERS.find((t) => process.argv.includes(t)) ?? null;
const args = process.argv.slice(2).filter((a) => !TIERS.includes(a));
const gate = () => testFiles('test').filter((f) => !SLOW_FILES.includes(f));

if (args.some((a) => a.endsWith('.ts'))) process.exit(run([], []));
// Node's default is one file per core but one (one at a time on 2 cores). The unit tier's files
// share nothing (each its own temp dir or schema) and wait on I/O, so it runs one per core, two
// at least.
if (tier === '--unit') process.exit(run(UNIT_DIRS.flatMap(testFiles), [`--test-concurrency=${Math.max(2, availableParallelism())}`]));
if (tier === '--gate') process.exit(run(gate(), []));
if (tier === '--slow') process.exit(run(SLOW_FILES, []));
const gateStatus = run(gate(), []);
console.log(`# gate tier ${gateStatus === 0 ? 'passed' : `FAILED (exit ${gateStatus})`}; the slow tier follows`);
const slowStatus = run(SLOW_FILES, []);
process.exit(gateStatus !== 0 ? gateStatus : slowStatus);
