// No key nobody asked for (src/app.ts `startApp`): a demo key is created only for the demo
// universe on a store that has never had a key; revoking every key and restarting creates none;
// real sources never get one. Started in this process on a temporary SQLite store, restarted on
// the same DATA_DIR.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { startApp, type AppOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Source } from '../../src/sources/source.js';
import { TEST_AS_OF } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

/** One start and stop; what the start reported about keys. */
async function start(dir: string, options: AppOptions = {}): Promise<{ demoKeys: string[]; noKey: number; active: number; ever: boolean }> {
  const config = loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', REFRESH_SCHEDULE: 'off' });
  const demoKeys: string[] = [];
  let noKey = 0;
  const app = await startApp(config, {
    logger: pino({ level: 'silent' }),
    demo: { scale: 0.03, asOf: TEST_AS_OF },
    onDemoKey: (key) => demoKeys.push(key),
    onNoKey: () => (noKey += 1),
    ...options,
  });
  try {
    return { demoKeys, noKey, active: await app.store.access.countKeys(), ever: await app.store.access.everHadKey() };
  } finally {
    await app.close();
  }
}

/** A real source stand-in that fails at once (its failure is the refresh's business, not the key's). */
const failing: Source = {
  name: 'fsc',
  ingest: () => Promise.reject(new Error('upstream down')),
};

describe('the demo key', () => {
  it('is created once, on the first start of the demo on an empty store; a revoke of every key and a restart create none and say so', async () => {
    const tmp = tempDir();
    try {
      const first = await start(tmp.dir);
      assert.equal(first.demoKeys.length, 1);
      assert.match(first.demoKeys[0]!, /^sk_live_[A-Za-z0-9_-]{43}$/);
      assert.deepEqual([first.noKey, first.active, first.ever], [0, 1, true]);

      const second = await start(tmp.dir);
      assert.deepEqual([second.demoKeys.length, second.noKey, second.active], [0, 0, 1], 'a later start with a key: nothing to say');

      // Revoke every key, as `keys revoke` does, then start again.
      const config = loadConfig({ DATA_DIR: tmp.dir, PORT: '0', REFRESH_SCHEDULE: 'off' });
      const app = await startApp(config, { logger: pino({ level: 'silent' }), demo: { scale: 0.03, asOf: TEST_AS_OF } });
      const [row] = await app.store.access.listKeys(TEST_AS_OF);
      assert.equal(await app.store.access.revokeKey(row!.prefix, new Date().toISOString()), true);
      await app.close();

      const third = await start(tmp.dir);
      assert.deepEqual([third.demoKeys.length, third.noKey, third.active, third.ever], [0, 1, 0, true], 'no new working key; the start says how to create one');
    } finally {
      tmp.cleanup();
    }
  });

  it('is never created for real sources, even on an empty store: the start says how to create a key', async () => {
    const tmp = tempDir();
    try {
      const r = await start(tmp.dir, { sources: [failing] });
      assert.deepEqual([r.demoKeys.length, r.noKey, r.active, r.ever], [0, 1, 0, false]);
    } finally {
      tmp.cleanup();
    }
  });
});
