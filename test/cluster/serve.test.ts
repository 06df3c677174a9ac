// One service process on the embedded SQLite store, as `npm start` runs it: request logs
// reach stdout within the flush interval, the in-memory day counts survive a graceful
// restart, and a revocation from the CLI (another process) counts from the next call.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startInstance, waitReady, type Instance } from '../support/instance.js';
import { until } from '../support/until.js';
import { tempDir } from '../support/tmp.js';

const run = promisify(execFile);

describe('the service process on SQLite', () => {
  const tmp = tempDir();
  const env: Record<string, string> = {
    DATA_DIR: tmp.dir,
    PORT: '0',
    DEMO_SCALE: '0.05',
    FREE_DAILY_QUOTA: '5',
    FREE_BURST_PER_SECOND: '1000',
    REFRESH_SCHEDULE: 'off',
    LOG_LEVEL: 'info',
  };
  const cli = async (...args: string[]) => (await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: { ...process.env, ...env } })).stdout;
  let instance: Instance | undefined;
  let key = '';

  const call = async () => (await fetch(`${instance?.url}/api/public/v2/rankings`, { headers: { authorization: `Bearer ${key}` } })).status;
  const stop = async () => (instance ? instance.stop() : null);

  before(async () => {
    instance = await startInstance(env);
    await waitReady(instance.url);
    key = (await cli('keys', 'create', '--plan', 'free')).trim().split('\n').at(-1) ?? '';
    assert.match(key, /^sk_live_/);
  });
  after(async () => {
    await stop();
    tmp.cleanup();
  });

  it('writes request log lines to stdout within the flush interval', async () => {
    assert.equal(await call(), 200);
    const logged = () => instance?.output.join('').split('\n').some((l) => l.includes('"route":"/api/public/v2/rankings"') && l.includes('"status":200')) ?? false;
    assert.ok(await until(logged, { timeoutMs: 5_000, intervalMs: 50 }), 'a request log line within 5 s');
    assert.ok(!instance?.output.join('').includes(key.slice(16)), 'no key secret in the output');
  });

  it("keeps the day's count across a graceful restart", async () => {
    assert.equal(await call(), 200);
    assert.equal(await call(), 200); // 3 calls today
    assert.equal(await stop(), 0);
    assert.match(await cli('keys', 'list'), new RegExp(`${key.slice(0, 16)}.*\\s3  `));
    instance = await startInstance(env);
    await waitReady(instance.url);
    assert.deepEqual([await call(), await call(), await call()], [200, 200, 429]);
  });

  it('refuses a key revoked from the CLI on the next call', async () => {
    await cli('keys', 'plan', key.slice(0, 16), 'paid');
    assert.equal(await call(), 200, 'the plan change counts at once: paid quota');
    await cli('keys', 'revoke', key.slice(0, 16));
    assert.equal(await call(), 401);
  });
});
