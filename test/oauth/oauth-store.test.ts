// The OAuth part of the store on SQLite and PostgreSQL: clients upserted, a code taken once,
// tokens read with their key's row as it is now (a revoked key shows at once), a replayed code's
// tokens revoked, a rotated refresh token's access token ended, the sign-in page's pending grant
// taken once, expired rows and unused clients swept.

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
      const first = { clientId: 'https://app.example/client.json', kind: 'document' as const, name: 'App', redirectUris: ['https://app.example/cb'], createdAt: '2026-11-20T00:00:00.000Z', fetchedAt: '2026-11-20T00:00:00.000Z', expiresAt: '2026-11-20T01:00:00.000Z' };
      await store.oauth.putClient(first);
      await store.oauth.putClient({ ...first, name: 'App 2', redirectUris: ['https://app.example/cb2'], createdAt: '2026-11-21T00:00:00.000Z', fetchedAt: '2026-11-21T00:00:00.000Z', expiresAt: '2026-11-21T00:05:00.000Z' });
      assert.deepEqual(await store.oauth.client(first.clientId), { ...first, name: 'App 2', redirectUris: ['https://app.example/cb2'], fetchedAt: '2026-11-21T00:00:00.000Z', expiresAt: '2026-11-21T00:05:00.000Z' });
      assert.equal(await store.oauth.client('c_unknown'), null);
    });

    it('takes a code once: of two takes at once one wins; a replay marks it and deletes its grant\'s tokens', async () => {
      const code = { codeHash: HASH_A, clientId: 'c_1', keyId, redirectUri: 'http://127.0.0.1:1/cb', codeChallenge: 'x'.repeat(43), codeChallengeMethod: 'S256', resource: 'http://127.0.0.1:1/api/mcp', scope: 'mcp', expiresAt: '2026-11-20T00:02:00.000Z' };
      await store.oauth.insertCode(code);
      assert.deepEqual(await store.oauth.code(HASH_A), { ...code, usedAt: null, replayedAt: null });
      const at = '2026-11-20T00:01:00.000Z';
      assert.deepEqual(await Promise.all([store.oauth.takeCode(HASH_A, at), store.oauth.takeCode(HASH_A, at)]).then((r) => r.sort()), [false, true]);
      assert.deepEqual(await store.oauth.code(HASH_A), { ...code, usedAt: at, replayedAt: null });
      // Two tokens of the grant (one refreshed from it) and one of another grant: the replay deletes 2.
      const base = { kind: 'access' as const, clientId: 'c_1', keyId, resource: 'r', scope: 'mcp', expiresAt: '2026-11-20T01:00:00.000Z', createdAt: at, siblingHash: null };
      await store.oauth.insertToken({ ...base, tokenHash: 'd'.repeat(64), grantId: HASH_A });
      await store.oauth.insertToken({ ...base, tokenHash: 'e'.repeat(64), grantId: HASH_A, kind: 'refresh' });
      await store.oauth.insertToken({ ...base, tokenHash: '9'.repeat(64), grantId: 'f'.repeat(64) });
      assert.equal(await store.oauth.codeReplayed(HASH_A), false);
      assert.equal(await store.oauth.replayCode(HASH_A, '2026-11-20T00:01:30.000Z'), 2);
      assert.equal(await store.oauth.codeReplayed(HASH_A), true);
      assert.equal(await store.oauth.token('d'.repeat(64), 'access'), null);
      assert.notEqual(await store.oauth.token('9'.repeat(64), 'access'), null);
      assert.equal(await store.oauth.deleteGrant('f'.repeat(64)), 1);
    });

    it('deletes a refresh token with the access token issued beside it, and no other', async () => {
      const base = { clientId: 'c_1', keyId, resource: 'r', scope: 'mcp', expiresAt: '2026-11-20T01:00:00.000Z', createdAt: '2026-11-20T00:00:00.000Z', grantId: null };
      await store.oauth.insertToken({ ...base, kind: 'access', tokenHash: '1'.repeat(64), siblingHash: null });
      await store.oauth.insertToken({ ...base, kind: 'access', tokenHash: '2'.repeat(64), siblingHash: null });
      await store.oauth.insertToken({ ...base, kind: 'refresh', tokenHash: '3'.repeat(64), siblingHash: '1'.repeat(64) });
      assert.equal(await store.oauth.deleteToken('3'.repeat(64)), true);
      assert.equal(await store.oauth.token('1'.repeat(64), 'access'), null);
      assert.notEqual(await store.oauth.token('2'.repeat(64), 'access'), null);
      assert.equal(await store.oauth.deleteToken('2'.repeat(64)), true);
    });

    it('holds a pending grant by session, replaces it, and gives it out once and only before it expires', async () => {
      const pending = { sessionHash: '4'.repeat(64), keyId, clientId: 'c_1', request: { state: 's', redirect_uri: 'http://127.0.0.1:1/cb' }, expiresAt: '2026-11-20T00:10:00.000Z' };
      await store.oauth.putPending({ ...pending, request: { state: 'older' } });
      await store.oauth.putPending(pending);
      const [a, b] = await Promise.all([store.oauth.takePending(pending.sessionHash, '2026-11-20T00:05:00.000Z'), store.oauth.takePending(pending.sessionHash, '2026-11-20T00:05:00.000Z')]);
      assert.deepEqual([a, b].filter((x) => x !== null), [{ ...pending, keyRevokedAt: null }]);
      await store.oauth.putPending(pending);
      assert.equal(await store.oauth.takePending(pending.sessionHash, '2026-11-20T00:10:00.000Z'), null, 'expired at 00:10');
      assert.equal(await store.oauth.takePending(pending.sessionHash, '2026-11-20T00:05:00.000Z'), null, 'the expired one was deleted');
    });

    it('reads a token with its key row as it is now, and by kind only', async () => {
      const token = { tokenHash: HASH_B, kind: 'access' as const, clientId: 'c_1', keyId, resource: 'http://127.0.0.1:1/api/mcp', scope: 'mcp', expiresAt: '2026-11-20T01:00:00.000Z', createdAt: '2026-11-20T00:00:00.000Z', grantId: null, siblingHash: null };
      await store.oauth.insertToken(token);
      assert.deepEqual(await store.oauth.token(HASH_B, 'access'), { ...token, keyPrefix: 'sk_live_abcdefgh', keyPlan: 'paid', keyRevokedAt: null });
      assert.equal(await store.oauth.token(HASH_B, 'refresh'), null);
      assert.equal(await store.access.revokeKey('sk_live_abcdefgh', '2026-11-20T00:30:00.000Z'), true);
      assert.equal((await store.oauth.token(HASH_B, 'access'))?.keyRevokedAt, '2026-11-20T00:30:00.000Z');
    });

    it('deletes a token once, and sweeps what expired before a time', async () => {
      const base = { kind: 'refresh' as const, clientId: 'c_1', keyId, resource: 'r', scope: 'mcp', createdAt: '2026-11-20T00:00:00.000Z', grantId: null, siblingHash: null };
      await store.oauth.insertToken({ ...base, tokenHash: HASH_C, expiresAt: '2026-12-20T00:00:00.000Z' });
      assert.equal(await store.oauth.deleteToken(HASH_C), true);
      assert.equal(await store.oauth.deleteToken(HASH_C), false);
      // Swept at 02:00: HASH_B (access, expires 01:00), the code HASH_A (02:00 is past its 00:02) and
      // the document client of the first test (its copy expired at 00:05 on the 21st: not yet).
      // A refresh token expiring in December is not.
      await store.oauth.insertToken({ ...base, tokenHash: HASH_C, expiresAt: '2026-12-20T00:00:00.000Z' });
      assert.equal(await store.oauth.deleteExpired('2026-11-20T02:00:00.000Z'), 2);
      assert.equal(await store.oauth.token(HASH_B, 'access'), null);
      assert.notEqual(await store.oauth.token(HASH_C, 'refresh'), null);
    });

    it('sweeps clients that are unused: a document whose copy expired, a registration older than the cutoff', async () => {
      const client = (clientId: string, kind: 'document' | 'registered', createdAt: string, expiresAt: string | null) => ({ clientId, kind, name: clientId, redirectUris: ['https://x.example/cb'], createdAt, fetchedAt: createdAt, expiresAt });
      await store.oauth.putClient(client('https://gone.example/c.json', 'document', '2026-11-22T00:00:00.000Z', '2026-11-22T01:00:00.000Z'));
      await store.oauth.putClient(client('https://fresh.example/c.json', 'document', '2026-11-22T00:00:00.000Z', '2026-11-23T00:00:00.000Z'));
      await store.oauth.putClient(client('https://used.example/c.json', 'document', '2026-11-22T00:00:00.000Z', '2026-11-22T01:00:00.000Z'));
      await store.oauth.putClient(client('c_old', 'registered', '2026-10-01T00:00:00.000Z', null));
      await store.oauth.putClient(client('c_new', 'registered', '2026-11-21T00:00:00.000Z', null));
      await store.oauth.insertToken({ tokenHash: '5'.repeat(64), kind: 'refresh', clientId: 'https://used.example/c.json', keyId, resource: 'r', scope: 'mcp', createdAt: '2026-11-22T00:00:00.000Z', expiresAt: '2026-12-22T00:00:00.000Z', grantId: null, siblingHash: null });
      // At 12:00 on the 22nd, registrations before 2026-10-23 count as old: gone.example, c_old and
      // app.example (the first test's document, expired on the 21st) are deleted; the rest stay.
      assert.equal(await store.oauth.deleteExpired('2026-11-22T12:00:00.000Z', '2026-10-23T12:00:00.000Z'), 3);
      for (const [id, kept] of [['https://gone.example/c.json', false], ['https://fresh.example/c.json', true], ['https://used.example/c.json', true], ['c_old', false], ['c_new', true], ['https://app.example/client.json', false]] as const) {
        assert.equal((await store.oauth.client(id)) !== null, kept, id);
      }
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
