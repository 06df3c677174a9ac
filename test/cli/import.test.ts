// `npm run cli -- import --from DIR` as its own process, its stdout a pipe (not a TTY): plain
// progress lines, the run recorded, and `sources` showing the persisted progress above the runs.
// The folder holds a companyfacts.zip built of REAL recorded companyfacts members
// (./../refresh/bulk-readers.ts), and the SEC ticker list comes from the loopback upstream of
// recorded answers (test/e2e/upstream.ts).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startUpstream, type Upstream } from '../e2e/upstream.js';
import { archive } from '../refresh/bulk-readers.js';
import { tempDir } from '../support/tmp.js';

const run = promisify(execFile);
const cli = (args: string[], env: NodeJS.ProcessEnv) => run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env });

/** The environment without any upstream credential, so only what a test sets is configured. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['DART_API_KEY', 'DATA_GO_KR_API_KEY', 'KRX_COOKIE', 'KRX_ENABLED', 'SEC_USER_AGENT', 'SEC_TICKERS', 'US_PRICES_API_KEY', 'ECOS_API_KEY', 'DATABASE_URL']) delete env[k];
  return { ...env, LOG_LEVEL: 'silent', ...extra };
}

/** The bulk readers' modules (src/refresh/bulk-sources.ts readerModules) are in this tree. */
const READERS = existsSync('src/sources/sec/bulk.ts') && existsSync('src/sources/opendart/bulk.ts');

describe('cli import --from DIR', () => {
  const tmp = tempDir('cli-import-');
  const files = join(tmp.dir, 'files');
  let upstream: Upstream;

  before(async () => {
    upstream = await startUpstream();
    mkdirSync(files);
    archive(files, 'companyfacts.zip', ['AAPL', 'MRVL', 'TSLA']);
  });
  after(async () => {
    await upstream.close();
    tmp.cleanup();
  });

  it('refuses a folder without a bulk file', async () => {
    const empty = join(tmp.dir, 'empty');
    mkdirSync(empty);
    await assert.rejects(cli(['import', '--from', empty], cleanEnv({ DATA_DIR: join(tmp.dir, 'd0') })), (err: { code?: number; stderr?: string }) => {
      assert.equal(err.code, 2);
      assert.match(err.stderr ?? '', /^import: no bulk file in .*empty \(DART's YYYY_nQ_XX_YYYYMMDDhhmmss\.zip, companyfacts\.zip\)\n$/);
      return true;
    });
  });

  it('without SEC_USER_AGENT, prints plain progress lines, records the run failed with the reason, and `sources` shows both', async () => {
    const env = cleanEnv({ DATA_DIR: join(tmp.dir, 'd1') });
    const out = await cli(['import', '--from', files], env).then(
      () => assert.fail('an import with every source failed exits 1'),
      (err: { code?: number; stdout?: string }) => {
        assert.equal(err.code, 1);
        return err.stdout ?? '';
      },
    );
    const lines = out.split('\n');
    // Plain lines, not a bar: the source's phase changes, each once (waiting, then failed).
    assert.ok(lines.some((l) => /^sec {8}waiting {6}0 items {2}ETA \?$/.test(l)), out);
    assert.ok(lines.some((l) => /^sec {8}failed {7}0 items {2}SEC_USER_AGENT is not set: SEC requires a contact for its ticker list and archives; 0 records kept$/.test(l)), out);
    assert.ok(!out.includes('\u001b['), 'no terminal escapes when stdout is not a TTY');
    assert.match(out, /\nimport failed: 0 batches, 0 dataset versions published\nrun 1 {2}\S+ {2}failed\n {2}sec {7}FAILED SEC_USER_AGENT is not set/);

    const sources = await cli(['sources', '--runs', '1'], env);
    assert.match(sources.stdout, /^progress \(as of \S+\+09:00\)\n {2}sec {8}failed {7}0 items {2}SEC_USER_AGENT is not set[^\n]*\n\nrun 1 {2}\S+ {2}failed\n/);
  });

  it('with the readers, stores the companies of the archive and sets the SEC cursor', { skip: READERS ? false : 'the bulk readers (src/sources/*/bulk.ts) are not in this tree yet' }, async () => {
    const env = cleanEnv({ DATA_DIR: join(tmp.dir, 'd2'), SEC_USER_AGENT: 'e2e-test admin@example.com', SEC_BASE_URL: upstream.base, SEC_DATA_BASE_URL: upstream.base });
    const { stdout } = await cli(['import', '--from', files], env);
    assert.match(stdout, /\nimport ok: \d+ batches/);
    assert.match(stdout, /\ncursor:sec set to \d{4}-\d{2}-\d{2}\n/);
    const sources = await cli(['sources', '--runs', '2'], env);
    assert.match(sources.stdout, /^progress \(as of [^\n]+\n {2}sec {8}done/);
  });
});
