// `npm run cli -- import --from DIR` as its own process, its stdout a pipe (not a TTY): plain
// progress lines, the run recorded, and `sources` showing the persisted progress above the runs.
// The folder holds a companyfacts.zip built of REAL recorded companyfacts members
// (./../refresh/bulk-readers.ts), and the SEC ticker list comes from the loopback upstream of
// recorded answers (test/e2e/upstream.ts).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startUpstream, type Upstream } from '../e2e/upstream.js';
import { archive } from '../refresh/bulk-readers.js';
import { zipOf } from '../sources/helpers.js';
import { tempDir } from '../support/tmp.js';

const run = promisify(execFile);
const cli = (args: string[], env: NodeJS.ProcessEnv) => run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env });

/** The environment without any upstream credential, so only what a test sets is configured. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['DART_API_KEY', 'DATA_GO_KR_API_KEY', 'KRX_COOKIE', 'KRX_ENABLED', 'SEC_USER_AGENT', 'SEC_TICKERS', 'US_PRICES_API_KEY', 'ECOS_API_KEY', 'ECB_RATES', 'ECB_BASE_URL', 'DATABASE_URL']) delete env[k];
  return { ...env, LOG_LEVEL: 'silent', ...extra };
}

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

  it("names the files it does not read, with why: SEC's financial statement data sets (the real 2009q3 release)", async () => {
    const fsds = join(tmp.dir, 'fsds');
    mkdirSync(fsds);
    copyFileSync(new URL('../fixtures/real/bulk/sec_fsds/sec_fsds_2009q3_build20241122_segments-format.zip', import.meta.url), join(fsds, '2009q3.zip'));
    writeFileSync(join(fsds, '2025_1Q_BS_2025.zip'), 'PK');
    await assert.rejects(cli(['import', '--from', fsds], cleanEnv({ DATA_DIR: join(tmp.dir, 'd-fsds') })), (err: { code?: number; stderr?: string }) => {
      assert.equal(err.code, 2);
      assert.equal(
        err.stderr,
        "import: 2009q3.zip: SEC's financial statement data sets: not read (the same facts come from companyfacts.zip)\n" +
          'import: 2025_1Q_BS_2025.zip: not a published DART bulk file name (YYYY_nQ_XX_YYYYMMDDhhmmss.zip)\n' +
          `import: no bulk file in ${fsds} (DART's YYYY_nQ_XX_YYYYMMDDhhmmss.zip, companyfacts.zip)\n`,
      );
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
    assert.match(sources.stdout, /^terms \(docs\/sources\.md, "Terms of each source"\)\n {2}demo {2}terms: [^\n]+\n\nprogress \(as of \S+\+09:00\)\n {2}sec {8}failed {7}0 items {2}SEC_USER_AGENT is not set[^\n]*\n\nrun 1 {2}\S+ {2}failed\n/);
  });

  it('an import that read nothing exits 1, says why, leaves the cursor, and prints member names escaped', async () => {
    // Made here: one DART ZIP whose only member's name holds a terminal escape (clear screen) and a NUL.
    const dart = join(tmp.dir, 'dart-hostile');
    mkdirSync(dart);
    writeFileSync(join(dart, '2016_1Q_PL_20210317040000.zip'), zipOf([{ name: '\u001b[2J\u0000evil.txt', content: 'x' }]));
    const env = cleanEnv({ DATA_DIR: join(tmp.dir, 'd-hostile') });
    const out = await cli(['import', '--from', dart], env).then(
      () => assert.fail('an import that read nothing exits 1'),
      (err: { code?: number; stdout?: string }) => {
        assert.equal(err.code, 1);
        return err.stdout ?? '';
      },
    );
    assert.ok(!out.includes('\u001b') && !out.includes('\u0000'), 'no raw escape or NUL reaches the terminal');
    assert.match(out, /\nimport failed: 0 batches, 0 dataset versions published\n/);
    assert.match(out, /\n {2}opendart {2}FAILED nothing read \(skipped: member with an unknown name: 1\)\n/);
    assert.ok(out.includes('e.g. 2016_1Q_PL_20210317040000.zip: \\x1b[2J\\x00evil.txt'), out);
    assert.ok(!out.includes('cursor:opendart'), out);
  });

  it('stores the companies of the archive, then runs the API sources from the cursor it set', async () => {
    const env = cleanEnv({ DATA_DIR: join(tmp.dir, 'd2'), SEC_USER_AGENT: 'e2e-test admin@example.com', SEC_BASE_URL: upstream.base, SEC_DATA_BASE_URL: upstream.base, ECB_RATES: 'off' });
    const { stdout } = await cli(['import', '--from', files], env);
    assert.match(stdout, /\nimport ok: 1 batches, 1 dataset versions published\n/);
    // The import (run 1): 3 securities + the reports of Apple (68 filings + 7 versions from later
    // filings' comparatives; test/sources/sec-bulk.test.ts says why not 10), Tesla (47 + 11) and
    // Marvell (21 + 1), as the API adapter reads them (docs/sources.md) = 158; of the 7,919 companies
    // of the recorded company_tickers.json, the 7,916 others have no member in this archive.
    assert.match(stdout, /\nrun 1 {2}\S+ {2}ok\n {2}sec {7}ok {5}taken 158, skipped 7916\n {9}7916 {2}listed company without a companyfacts member\n/);
    // Then the API refresh of every configured source (SEC alone here), from the cursor set.
    assert.match(stdout, /\nrun 2 {2}\S+ {2}ok\n {2}sec {7}ok {5}taken 0, skipped 0\n/);
    assert.match(stdout, /\ncursor:sec set to \d{4}-\d{2}-\d{2}\n/);
    const sources = await cli(['sources', '--runs', '2'], env);
    assert.match(sources.stdout, /^terms \(docs\/sources\.md, "Terms of each source"\)\n {2}sec {2}terms: SEC EDGAR[^\n]+\n\nprogress \(as of [^\n]+\n {2}sec {8}done/);
  });
});
