import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { generateKey } from '../../src/access/keys.js';
import { BufferedUsageCounter } from '../../src/access/usage.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

describe('BufferedUsageCounter (the embedded store counts in memory, writes every second)', () => {
  const tmp = tempDir();
  let store: KyselyStore;
  const keyIds: number[] = [];
  before(async () => {
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    for (let i = 0; i < 3; i++) {
      const k = generateKey();
      keyIds.push((await store.access.insertKey({ prefix: k.prefix, hash: k.hash, name: `k${i}`, plan: 'free', createdAt: '2026-11-23T00:00:00.000Z' })).id);
    }
  });
  after(async () => {
    await store.close();
    tmp.cleanup();
  });

  it('admits exactly the limit under concurrent first calls, and writes the count on flush', async () => {
    const id = keyIds[0] as number;
    const counter = new BufferedUsageCounter(store.access, 60_000);
    const results = await Promise.all(Array.from({ length: 25 }, () => counter.increment(id, '2026-11-23', 10)));
    assert.deepEqual(
      results.filter((r) => r !== null).sort((a, b) => (a as number) - (b as number)),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    assert.equal(results.filter((r) => r === null).length, 15);
    assert.equal(await store.access.usage(id, '2026-11-23'), 0, 'nothing written before the flush');
    await counter.flush();
    assert.equal(await store.access.usage(id, '2026-11-23'), 10);
    await counter.flush(); // nothing pending: no double count
    assert.equal(await store.access.usage(id, '2026-11-23'), 10);
    await counter.close();
  });

  it('continues from the stored count after a restart, and close() writes what is pending', async () => {
    const id = keyIds[1] as number;
    await store.access.addUsage([{ keyId: id, day: '2026-11-23', calls: 7 }]);
    const counter = new BufferedUsageCounter(store.access, 60_000);
    assert.equal(await counter.get(id, '2026-11-23'), 7);
    assert.equal(await counter.increment(id, '2026-11-23', 9), 8);
    assert.equal(await counter.increment(id, '2026-11-23', 9), 9);
    assert.equal(await counter.increment(id, '2026-11-23', 9), null, 'the quota is 9');
    assert.equal(await counter.increment(id, '2026-11-24', 9), 1, 'a new Seoul day starts at 0');
    await counter.close();
    assert.equal(await store.access.usage(id, '2026-11-23'), 9);
    assert.equal(await store.access.usage(id, '2026-11-24'), 1);
    const again = new BufferedUsageCounter(store.access, 60_000);
    assert.equal(await again.increment(id, '2026-11-23', 100), 10);
    await again.close();
    assert.equal(await store.access.usage(id, '2026-11-23'), 10);
  });

  it('keeps the counts pending when a flush fails, and writes them on the next one', async () => {
    const id = keyIds[2] as number;
    const counter = new BufferedUsageCounter(store.access, 60_000);
    for (let i = 0; i < 4; i++) await counter.increment(id, '2026-11-23', 100);
    const real = store.access.addUsage.bind(store.access);
    store.access.addUsage = () => Promise.reject(new Error('disk full'));
    await assert.rejects(counter.flush(), /disk full/);
    store.access.addUsage = real;
    await counter.increment(id, '2026-11-23', 100);
    await counter.flush();
    assert.equal(await store.access.usage(id, '2026-11-23'), 5);
    await counter.close();
  });

  it('reports a failed timed flush and writes the counts once the store works again', async () => {
    const id = keyIds[1] as number;
    const errors: unknown[] = [];
    const counter = new BufferedUsageCounter(store.access, 20, (e) => errors.push(e));
    const real = store.access.addUsage.bind(store.access);
    store.access.addUsage = () => Promise.reject(new Error('database is locked'));
    const before = await store.access.usage(id, '2026-11-26');
    await counter.increment(id, '2026-11-26', 100);
    await counter.increment(id, '2026-11-26', 100);
    await until(() => errors.length > 0, { timeoutMs: 5_000, intervalMs: 10 });
    store.access.addUsage = real;
    assert.match(String(errors[0]), /database is locked/);
    await counter.close();
    assert.equal((await store.access.usage(id, '2026-11-26')) - before, 2);
  });

  it('flushes on its own timer', async () => {
    const id = keyIds[0] as number;
    const counter = new BufferedUsageCounter(store.access, 20);
    await counter.increment(id, '2026-11-25', 100);
    await until(async () => (await store.access.usage(id, '2026-11-25')) > 0, { timeoutMs: 5_000, intervalMs: 10 });
    assert.equal(await store.access.usage(id, '2026-11-25'), 1);
    await counter.close();
  });
});
