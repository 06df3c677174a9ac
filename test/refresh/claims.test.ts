// Claims die with their holder: a claimant takes over a claim whose holder's process is gone
// (same host) or whose lease ended (another host), says so in the log, and never takes over a
// live holder's claim or a finished one.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Claims, deadHolder, processHost } from '../../src/refresh/claims.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { tempDir } from '../support/tmp.js';

/** A pid that was a process a moment ago and is not one now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid ?? 0;
}

describe('claims', () => {
  const tmp = tempDir();
  let store: KyselyStore;
  const logs: string[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(chunk.toString());
        done();
      },
    }),
  );
  before(async () => {
    store = await openSqliteStore(join(tmp.dir, 'claims.sqlite'));
  });
  after(async () => {
    await store.close();
    tmp.cleanup();
  });

  it("takes over a claim whose holder's process is gone, and logs it", async () => {
    const at = new Date().toISOString();
    // A far lease: only the process check can free it.
    assert.ok(await store.refresh.claimSlot('bootstrap', { instance: 'gone', host: processHost(), pid: deadPid() }, at, '2999-01-01T00:00:00.000Z'));
    const claims = new Claims(store.refresh, logger);
    const lease = await claims.acquire('bootstrap');
    assert.ok(lease, 'taken over');
    assert.equal((await store.refresh.slotClaim('bootstrap'))?.instance, claims.holder.instance);
    const line = logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'claim taken over from a holder that died');
    assert.equal(line?.previousInstance, 'gone');
    assert.equal(line?.reason, 'holder process gone');
    // Held by a live process (this one): the next claimant waits.
    assert.equal(await new Claims(store.refresh, logger).acquire('bootstrap'), null);
    await lease.finish();
    assert.equal(await new Claims(store.refresh, logger).acquire('bootstrap'), null, 'done: never again');
  });

  it("judges another host's holder by its lease", () => {
    const me = { instance: 'me', host: processHost(), pid: process.pid };
    const now = new Date('2026-01-01T00:00:10.000Z');
    const claim = { slot: 's', instance: 'far', host: 'other-host', pid: 1, claimedAt: '2026-01-01T00:00:00.000Z', done: false };
    assert.equal(deadHolder({ ...claim, expiresAt: '2026-01-01T00:00:09.999Z' }, me, now), 'lease ended');
    assert.equal(deadHolder({ ...claim, expiresAt: '2026-01-01T00:00:10.001Z' }, me, now), null);
    assert.equal(deadHolder({ ...claim, expiresAt: '', done: true }, me, now), null, 'a finished claim is never dead');
    // Same host: the process decides, not the lease.
    assert.equal(deadHolder({ ...claim, host: me.host, pid: process.pid, instance: 'earlier', expiresAt: '2999-01-01' }, me, now), 'holder process gone');
    assert.equal(deadHolder({ ...claim, host: me.host, pid: process.ppid, expiresAt: '' }, me, now), null);
  });

  it('a released claim goes to the next claimant at once', async () => {
    const first = await new Claims(store.refresh, logger).acquire('run:x');
    assert.ok(first);
    await first.release();
    assert.ok(await new Claims(store.refresh, logger).acquire('run:x'));
  });
});
