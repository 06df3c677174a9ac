// Backup and restore of the SQLite store from the CLI while the service runs: the backup is a
// consistent, checked copy, its owner's alone (0600, as the store and its folder, 0700); a
// restore brings the backup's data back and the running service picks it up (recomputes), but a
// key revoked since the backup stays revoked; a file that is not a backup is refused and changes
// nothing; a failed backup leaves no file.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { startInstance, waitReady, type Instance } from '../support/instance.js';
import { until } from '../support/until.js';
import { tempDir } from '../support/tmp.js';

const run = promisify(execFile);

describe('backup and restore (SQLite) while serving', () => {
  const tmp = tempDir();
  const env: Record<string, string> = { DATA_DIR: join(tmp.dir, 'data'), PORT: '0', DEMO_SCALE: '0.05', REFRESH_SCHEDULE: 'off', LOG_LEVEL: 'warn' };
  const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: { ...process.env, ...env } });
  let instance: Instance;
  let key = '';
  let revoked = '';
  const status = async (k = key) => (await fetch(`${instance.url}/api/public/v2/rankings`, { headers: { authorization: `Bearer ${k}` } })).status;

  before(async () => {
    instance = await startInstance(env);
    await waitReady(instance.url);
    key = (await cli('keys', 'create', '--plan', 'paid')).stdout.trim().split('\n').at(-1) ?? '';
    revoked = (await cli('keys', 'create', '--plan', 'paid')).stdout.trim().split('\n').at(-1) ?? '';
  });
  after(async () => {
    await instance.stop();
    tmp.cleanup();
  });

  it('backs up a consistent, checked copy, 0600; restoring it keeps a later revocation; the running service recomputes', async () => {
    assert.equal(await status(), 200);
    assert.equal(await status(revoked), 200);
    // The service and the CLI create what they create for their owner alone.
    const mode = (path: string) => statSync(path).mode & 0o777;
    assert.equal(mode(env.DATA_DIR ?? ''), 0o700);
    for (const f of ['service.sqlite', 'service.sqlite-wal', 'service.sqlite-shm']) assert.equal(mode(join(env.DATA_DIR ?? '', f)), 0o600, f);
    const file = join(tmp.dir, 'backup.sqlite');
    const { stdout } = await cli('backup', file);
    assert.match(stdout, /backed up to/);
    const copy = new Database(file, { readonly: true });
    assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
    assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete', 'one self-contained file');
    const live = new Database(join(env.DATA_DIR ?? '', 'service.sqlite'), { readonly: true });
    for (const table of ['securities', 'bars', 'reports', 'api_keys']) {
      const n = (db: Database.Database) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
      assert.equal(n(copy), n(live), table);
    }
    copy.close();
    live.close();
    assert.ok(!existsSync(`${file}.partial`));
    assert.equal(mode(file), 0o600);

    await cli('keys', 'revoke', revoked.slice(0, 16));
    assert.equal(await status(revoked), 401);
    const versionBefore = ((await (await fetch(`${instance.url}/readyz`)).json()) as { dataVersion: number }).dataVersion;
    const restored = await cli('restore', file);
    assert.match(restored.stdout, /restored from .*"revocationsKept":1/);
    assert.equal(await status(revoked), 401, 'a key revoked since the backup stays revoked');
    assert.equal(await status(), 200);
    // The service recomputes from the restored store within its version poll (3 s).
    let version = versionBefore;
    const served = async () => (version = ((await (await fetch(`${instance.url}/readyz`)).json()) as { dataVersion: number }).dataVersion) > versionBefore;
    assert.ok(await until(served, { timeoutMs: 10_000, intervalMs: 200 }), `served version ${version} > ${versionBefore}`);
    assert.equal(await status(), 200);
  });

  it('refuses a file that is not a backup, and a backup that cannot be written leaves nothing', async () => {
    const junk = join(tmp.dir, 'junk.sqlite');
    writeFileSync(junk, 'not a database at all, just text'.repeat(200));
    await assert.rejects(cli('restore', junk), (err: { code: number; stderr: string }) => err.code === 1 && /restore failed: .*not an SQLite database/.test(err.stderr));
    const empty = join(tmp.dir, 'empty.sqlite');
    new Database(empty).close();
    await assert.rejects(cli('restore', empty), (err: { stderr: string }) => /not a store of this service/.test(err.stderr));
    assert.equal(await status(), 200, 'the store is untouched');
    const nowhere = join(tmp.dir, 'no-such-dir', 'backup.sqlite');
    await assert.rejects(cli('backup', nowhere));
    assert.ok(!existsSync(nowhere) && !existsSync(`${nowhere}.partial`));
  });
});
