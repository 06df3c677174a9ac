// Keys peppered with a server secret (src/access/keys.ts `applyKeyPepper`, the store's
// `keyHashScheme` / `rehashKeys`): a store's plain SHA-256 hashes are moved in place to
// HMAC-SHA256(secret, SHA-256 bytes), once, on SQLite and on PostgreSQL; a start without the
// secret, or with another, is refused; and a key made before the move still works through the
// service after it.

import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import { applyKeyPepper, hashKey, keyHashScheme } from '../../src/access/keys.js';
import { createKey, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { freshSchema, PG_SKIP } from '../support/pg.js';
import { get, TEST_AS_OF } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

const SECRET = 'pepper-for-tests-0123456789';
const sha256 = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
// The peppered form by hand: HMAC-SHA256 keyed by the secret over the 32 bytes of the SHA-256.
const peppered = (key: string, secret = SECRET) => createHmac('sha256', secret).update(createHash('sha256').update(key, 'utf8').digest()).digest('hex');
const fingerprint = (secret: string) => createHmac('sha256', secret).update('key_hash_scheme fingerprint').digest('hex').slice(0, 16);

const engines: { name: string; skip: string | false; open: () => Promise<{ open: () => Promise<Store>; cleanup: () => Promise<void> | void }> }[] = [
  {
    name: 'SQLite',
    skip: false,
    open: async () => {
      const tmp = tempDir();
      return { open: () => openSqliteStore(join(tmp.dir, 's.sqlite')), cleanup: () => tmp.cleanup() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: PG_SKIP,
    open: async () => {
      const schema = await freshSchema();
      return { open: () => openPostgresStore(schema.url, 2), cleanup: schema.drop };
    },
  },
];

for (const engine of engines) {
  describe(`KEY_PEPPER on ${engine.name}`, { skip: engine.skip }, () => {
    it('peppers the stored hashes once, in place; the keys made before and after are found; no secret or another one is refused', async () => {
      const setup = await engine.open();
      const store = await setup.open();
      try {
        assert.equal(await applyKeyPepper(store.access, undefined), 'unchanged');
        assert.equal(await store.access.keyHashScheme(), null);
        const before = await createKey(store.access, 'paid', 'before');
        const revoked = await createKey(store.access, 'free', 'revoked');
        await store.access.revokeKey(revoked.slice(0, 16), '2026-11-20T00:00:00.000Z');
        assert.equal((await store.access.keyByHash(sha256(before)))?.name, 'before', 'plain SHA-256 without a secret');

        assert.equal(await applyKeyPepper(store.access, SECRET), 'peppered');
        assert.equal(await store.access.keyHashScheme(), `hmac-sha256:${fingerprint(SECRET)}`);
        assert.equal(keyHashScheme(SECRET), `hmac-sha256:${fingerprint(SECRET)}`);
        assert.equal(hashKey(before), peppered(before));
        assert.equal((await store.access.keyByHash(peppered(before)))?.name, 'before');
        assert.equal(await store.access.keyByHash(sha256(before)), null, 'no plain hash is left');
        const old = await store.access.keyByHash(peppered(revoked));
        assert.equal(old?.name, 'revoked');
        assert.notEqual(old?.revokedAt, null, 'a revoked key stays revoked');

        // Again with the same secret: nothing moves (peppered once, not twice).
        assert.equal(await applyKeyPepper(store.access, SECRET), 'unchanged');
        assert.equal((await store.access.keyByHash(peppered(before)))?.name, 'before');

        const after = await createKey(store.access, 'free', 'after');
        assert.equal((await store.access.keyByHash(peppered(after)))?.name, 'after');

        await assert.rejects(applyKeyPepper(store.access, undefined), /the stored API keys are peppered \(KEY_PEPPER\); start with the same KEY_PEPPER/);
        await assert.rejects(applyKeyPepper(store.access, ''), /start with the same KEY_PEPPER/);
        await assert.rejects(
          applyKeyPepper(store.access, 'another-secret-0123456789'),
          new RegExp(`^Error: KEY_PEPPER is not the secret the stored API keys were peppered with \\(stored hmac-sha256:${fingerprint(SECRET)}, configured hmac-sha256:${fingerprint('another-secret-0123456789')}\\)`),
        );
        assert.equal((await store.access.keyByHash(peppered(before)))?.name, 'before', 'a refused start changes nothing');
      } finally {
        await store.close();
        await setup.cleanup();
      }
    });

    // On SQLite two connections of one thread cannot wait for each other (a synchronous busy
    // wait holds the only thread): there the second store starts after the first's move.
    it('two processes peppering the same store (at once on PostgreSQL) pepper it once', async () => {
      const setup = await engine.open();
      const a = await setup.open();
      const b = await setup.open();
      try {
        await applyKeyPepper(a.access, undefined);
        const key = await createKey(a.access, 'paid', 'k');
        const outcomes =
          engine.name === 'SQLite'
            ? [await applyKeyPepper(a.access, SECRET), await applyKeyPepper(b.access, SECRET)]
            : await Promise.all([applyKeyPepper(a.access, SECRET), applyKeyPepper(b.access, SECRET)]);
        assert.deepEqual(outcomes.sort(), ['peppered', 'unchanged']);
        assert.equal((await b.access.keyByHash(peppered(key)))?.name, 'k');
      } finally {
        await a.close();
        await b.close();
        await setup.cleanup();
      }
    });
  });
}

describe('KEY_PEPPER set on a store in use', () => {
  it('the demo key made without it keeps working through the service after a restart with it; a start without it is refused', async () => {
    const tmp = tempDir();
    const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: tmp.dir, PORT: '0', HOST: '127.0.0.1', REFRESH_SCHEDULE: 'off', ...env });
    const options = { logger: pino({ level: 'silent' }), demo: { scale: 0.03, asOf: TEST_AS_OF } };
    try {
      let demoKey = '';
      const plain = await startApp(config({}), { ...options, onDemoKey: (k) => (demoKey = k) });
      await plain.ready;
      await plain.close();
      assert.match(demoKey, /^sk_live_/);

      const withPepper = await startApp(config({ KEY_PEPPER: SECRET }), options);
      try {
        await withPepper.ready;
        const health = await get(`${withPepper.url}/api/public/v2/health`, demoKey);
        assert.equal((health.body as { valid: boolean }).valid, true);
        assert.equal((await get(`${withPepper.url}/api/public/v2/rankings?limit=1`, demoKey)).status, 200);
        assert.equal((await withPepper.store.access.listKeys(TEST_AS_OF))[0]?.hash, peppered(demoKey));
      } finally {
        await withPepper.close();
      }
      await assert.rejects(startApp(config({}), options), /the stored API keys are peppered/);
      assert.throws(() => config({ KEY_PEPPER: 'short' }), /KEY_PEPPER: must be at least 16 characters/);
    } finally {
      tmp.cleanup();
    }
  });
});
