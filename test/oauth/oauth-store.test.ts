// The OAuth part of the store on SQLite and PostgreSQL: clients upserted, a code taken once,
// tokens read with their key's row as it is now (a revoked key shows at once), expired rows swept.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { freshSchema, PG_SKIP } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);
const HASH_C = 'c'.repeat(64);

function suite(engine: 'sqlite' | 'postgres', open: () => Promise<{ store: KyselyStore; done: () => Promise<void> }>) {
  describe(`OAuth store on ${engine}`, { skip: engine === 'postgres' ? PG_SKIP : false }, () => {
    let store: KyselyStore;
    let done: () => Promise<void>;
    let keyId: number;
    before(async () => {
      ({ store, done } = await open());
      keyId = (await store.access.insertKey({ prefix: 'sk_live_abcdefgh', hash: 'f'.repeat(64), name: 't', plan: 'paid', createdAt: '2026-11-20T00:00:00.000Z' })).id;
    });
    after(async () => done());

    it('stores a client and replaces a fetched document in place, keeping its creation time', async () => {
      const first = { clientId: 'https://app.example/client.json', kind: 'document' as const, name: 'App', redirectUris: ['https://app.example/cb'], createdAt: '2026-11-20T00:00:00.000Z', fetchedAt: '2026-11-20T00:00:00.000Z' };
      await store.oauth.putClient(first);
      await store.oauth.putClient({ ...first, name: 'App 2', redirectUris: ['https://app.example/cb2'], createdAt: '2026-11-21T00:00:00.000Z', fetchedAt: '2026-11-21T00:00:00.000Z' });
      assert.deepEqual(await store.oauth.client(first.clientId), { ...first, name: 'App 2', redirectUris: ['https://app.example/cb2'], fetchedAt: '2026-11-21T00:00:00.000Z' });
      assert.equal(await store.oauth.client('c_unknown'), null);
    });

    it('takes a code once: the second take (a replayed code) finds nothing', async () => {
      const code = { codeHash: HASH_A, clientId: 'c_1', keyId, redirectUri: 'http://127.0.0.1:1/cb', codeChallenge: 'x'.repeat(43), codeChallengeMethod: 'S256', resource: 'http://127.0.0.1:1/api/mcp', scope: 'mcp', expiresAt: '2026-11-20T00:02:00.000Z' };
      await store.oauth.insertCode(code);
      assert.deepEqual(await store.oauth.code(HASH_A), code);
      assert.deepEqual(await Promise.all([store.oauth.takeCode(HASH_A), store.oauth.takeCode(HASH_A)]).then((r) => r.sort()), [false, true]);
      assert.equal(await store.oauth.code(HASH_A), null);
    });

    it('reads a token with its key row as it is now, and by kind only', async () => {
      const token = { tokenHash: HASH_B, kind: 'access' as const, clientId: 'c_1', keyId, resource: 'http://127.0.0.1:1/api/mcp', scope: 'mcp', expiresAt: '2026-11-20T01:00:00.000Z', createdAt: '2026-11-20T00:00:00.000Z' };
      await store.oauth.insertToken(token);
      assert.deepEqual(await store.oauth.token(HASH_B, 'access'), { ...token, keyPrefix: 'sk_live_abcdefgh', keyPlan: 'paid', keyRevokedAt: null });
      assert.equal(await store.oauth.token(HASH_B, 'refresh'), null);
      assert.equal(await store.access.revokeKey('sk_live_abcdefgh', '2026-11-20T00:30:00.000Z'), true);
      assert.equal((await store.oauth.token(HASH_B, 'access'))?.keyRevokedAt, '2026-11-20T00:30:00.000Z');
    });

    it('deletes a token once, and sweeps what expired before a time', async () => {
      const base = { kind: 'refresh' as const, clientId: 'c_1', keyId, resource: 'r', scope: 'mcp', createdAt: '2026-11-20T00:00:00.000Z' };
      await store.oauth.insertToken({ ...base, tokenHash: HASH_C, expiresAt: '2026-12-20T00:00:00.000Z' });
      assert.equal(await store.oauth.deleteToken(HASH_C), true);
      assert.equal(await store.oauth.deleteToken(HASH_C), false);
      // HASH_B (access, expires 01:00) is swept at 02:00; a refresh token expiring in December is not.
      await store.oauth.insertToken({ ...base, tokenHash: HASH_C, expiresAt: '2026-12-20T00:00:00.000Z' });
      assert.equal(await store.oauth.deleteExpired('2026-11-20T02:00:00.000Z'), 1);
      assert.equal(await store.oauth.token(HASH_B, 'access'), null);
      assert.notEqual(await store.oauth.token(HASH_C, 'refresh'), null);
    });
  });
}

suite('sqlite', async () => {
  const tmp = tempDir();
  const store = await openSqliteStore(join(tmp.dir, 'store.db'));
  return { store, done: async () => (await store.close(), tmp.cleanup()) };
});

suite('postgres', async () => {
  const schema = await freshSchema();
  const store = await openPostgresStore(schema.url, 2);
  return { store, done: async () => (await store.close(), await schema.drop()) };
});
