// Runs every test file under test/ with Node's own test runner (TypeScript through tsx).
// Node 20's `--test` takes no globs, so the files are listed here. Extra arguments
// (file paths or a --test-name-pattern) are passed through.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function testFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const files = args.some((a) => a.endsWith('.ts')) ? [] : testFiles('test');
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter', process.env.TEST_REPORTER ?? 'tap', ...args, ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
