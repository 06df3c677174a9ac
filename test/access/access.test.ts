import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { AccessControl, type Admission } from '../../src/access/access.js';
import { nextSeoulMidnight, seoulDay, seoulIso } from '../../src/access/clock.js';
import { bearerToken, generateKey, hashKey, looksLikeKey, sameHash } from '../../src/access/keys.js';
import { BufferedUsageCounter, StoreUsageCounter, type UsageCounter } from '../../src/access/usage.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { KyselyStore } from '../../src/store/store.js';
import { tempDir } from '../support/tmp.js';

describe('keys', () => {
  it('are high-entropy, prefixed, and stored as SHA-256', () => {
    const a = generateKey();
    const b = generateKey();
    assert.match(a.key, /^sk_live_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a.key, b.key);
    assert.equal(a.prefix, a.key.slice(0, 16));
    assert.equal(a.hash, hashKey(a.key));
    assert.equal(a.hash.length, 64);
    assert.ok(!a.hash.includes(a.key.slice(8)));
    assert.ok(looksLikeKey(a.key));
    assert.ok(!looksLikeKey(`${a.key}x`));
    assert.ok(sameHash(a.hash, hashKey(a.key)));
    assert.ok(!sameHash(a.hash, b.hash));
    assert.ok(!sameHash(a.hash, 'abcd'), 'different lengths compare unequal without throwing');
  });

  it('reads only a well-formed Bearer header', () => {
    assert.equal(bearerToken('Bearer abc'), 'abc');
    assert.equal(bearerToken('bearer abc'), 'abc');
    assert.equal(bearerToken(undefined), null);
    assert.equal(bearerToken('Basic abc'), null);
    assert.equal(bearerToken('Bearer a b'), null);
    assert.equal(bearerToken('Bearer'), null);
  });
});

describe('Seoul calendar day', () => {
  it('turns at 15:00 UTC', () => {
    assert.equal(seoulDay(new Date('2026-11-23T14:59:59Z')), '2026-11-23');
    assert.equal(seoulDay(new Date('2026-11-23T15:00:00Z')), '2026-11-24');
    assert.equal(nextSeoulMidnight(new Date('2026-11-23T14:59:59Z')).toISOString(), '2026-11-23T15:00:00.000Z');
    assert.equal(nextSeoulMidnight(new Date('2026-11-23T15:00:00Z')).toISOString(), '2026-11-24T15:00:00.000Z');
    assert.equal(seoulIso(new Date('2026-11-23T15:00:00Z')), '2026-11-24T00:00:00+09:00');
  });
});

describe('AccessControl', () => {
  const tmp = tempDir();
  let store: KyselyStore;
  let now = new Date('2026-11-23T14:59:58.000Z'); // 23:59:58 in Seoul
  const clock = () => now;
  let access: AccessControl;
  let key: string;
  before(async () => {
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    access = new AccessControl(store.access, new StoreUsageCounter(store.access), { free: { daily: 3, burst: 2 }, paid: { daily: 10, burst: 5 } }, clock);
    const k = generateKey();
    await store.access.insertKey({ prefix: k.prefix, hash: k.hash, name: 't', plan: 'free', createdAt: now.toISOString() });
    key = k.key;
  });
  after(async () => {
    await store.close();
    tmp.cleanup();
  });

  it('authenticates a known key and refuses missing, malformed, unknown and revoked ones', async () => {
    const ok = await access.authenticate(`Bearer ${key}`);
    assert.ok(ok.ok);
    assert.deepEqual(await access.authenticate(undefined), { ok: false, why: 'missing' });
    assert.deepEqual(await access.authenticate('Bearer nope'), { ok: false, why: 'missing' });
    assert.deepEqual(await access.authenticate(`Bearer ${generateKey().key}`), { ok: false, why: 'unknown' });
  });

  it('counts calls, enforces the daily quota and resets at Seoul midnight', async () => {
    const auth = await access.authenticate(`Bearer ${key}`);
    assert.ok(auth.ok);
    const caller = auth.caller;
    const first = await access.admit(caller);
    assert.deepEqual([first.allowed, first.callsToday, first.resetsAt, first.resetSeconds], [true, 1, '2026-11-24T00:00:00+09:00', 2]);
    assert.equal((await access.admit(caller)).callsToday, 2);
    now = new Date('2026-11-23T14:59:59.000Z'); // next second: a fresh burst window
    assert.equal((await access.admit(caller)).callsToday, 3);
    const refused = await access.admit(caller);
    assert.deepEqual([refused.allowed, refused.refusal, refused.retryAfter], [false, 'quota_exceeded', 1]);
    assert.equal(await access.callsToday(caller), 3, 'a refused call is not counted');
    const health = await access.admit(caller, false);
    assert.deepEqual([health.allowed, health.callsToday], [true, 4], 'health is counted but never refused');

    now = new Date('2026-11-23T15:00:00.000Z'); // 00:00 in Seoul: a new day
    const nextDay = await access.admit(caller);
    assert.deepEqual([nextDay.allowed, nextDay.callsToday, nextDay.resetsAt], [true, 1, '2026-11-25T00:00:00+09:00']);
  });

  it('limits bursts within one second', async () => {
    const k = generateKey();
    await store.access.insertKey({ prefix: k.prefix, hash: k.hash, name: 'b', plan: 'paid', createdAt: now.toISOString() });
    const auth = await access.authenticate(`Bearer ${k.key}`);
    assert.ok(auth.ok);
    now = new Date('2026-11-24T01:00:00.100Z');
    for (let i = 0; i < 5; i++) assert.equal((await access.admit(auth.caller)).allowed, true);
    const sixth = await access.admit(auth.caller);
    assert.deepEqual([sixth.allowed, sixth.refusal, sixth.retryAfter], [false, 'rate_limited', 1]);
    now = new Date('2026-11-24T01:00:01.000Z');
    assert.equal((await access.admit(auth.caller)).allowed, true);
    assert.equal(await access.callsToday(auth.caller), 6, 'the burst-refused call was not counted');
  });

  it('refuses a revoked key on its next request', async () => {
    const k = generateKey();
    await store.access.insertKey({ prefix: k.prefix, hash: k.hash, name: 'r', plan: 'free', createdAt: now.toISOString() });
    assert.ok((await access.authenticate(`Bearer ${k.key}`)).ok);
    await store.access.revokeKey(k.prefix, now.toISOString());
    assert.deepEqual(await access.authenticate(`Bearer ${k.key}`), { ok: false, why: 'revoked', prefix: k.prefix });
  });
});

describe('AccessControl without waiting (admitNow, authenticateNow)', () => {
  const tmp = tempDir();
  let store: KyselyStore;
  let now = new Date('2026-11-23T14:59:58.000Z');
  const clock = () => now;
  const plans = { free: { daily: 4, burst: 2 }, paid: { daily: 10, burst: 5 } };
  before(async () => {
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
  });
  after(async () => {
    await store.close();
    tmp.cleanup();
  });

  const newKey = async (name: string) => {
    const k = generateKey();
    await store.access.insertKey({ prefix: k.prefix, hash: k.hash, name, plan: 'free', createdAt: now.toISOString() });
    return k.key;
  };

  it('counts, refuses and reports exactly as the awaited path does', async () => {
    // The same calls on two keys: one controller only ever awaits (its counter shows no
    // counts held in memory), the other counts without waiting whenever it can.
    const buffered = new BufferedUsageCounter(store.access, 60_000);
    const awaitedOnly: UsageCounter = {
      dependency: buffered.dependency,
      increment: (...a) => buffered.increment(...a),
      get: (...a) => buffered.get(...a),
      takeBurst: (...a) => buffered.takeBurst(...a),
    };
    const viaAwait = new AccessControl(store.access, awaitedOnly, plans, clock);
    const viaNow = new AccessControl(store.access, buffered, plans, clock);
    const a = await viaAwait.authenticate(`Bearer ${await newKey('await')}`);
    const b = await viaNow.authenticate(`Bearer ${await newKey('now')}`);
    assert.ok(a.ok && b.ok);

    assert.equal(viaNow.admitNow(b.caller), undefined, 'the day is not read yet: nothing counted');
    assert.equal(await viaNow.callsToday(b.caller), 0);

    const steps: { at: string; enforce: boolean }[] = [
      { at: '2026-11-23T14:59:58.000Z', enforce: true }, // 1
      { at: '2026-11-23T14:59:58.200Z', enforce: true }, // 2
      { at: '2026-11-23T14:59:58.400Z', enforce: true }, // burst of 2 refused, not counted
      { at: '2026-11-23T14:59:58.500Z', enforce: false }, // health: counted, never refused (3)
      { at: '2026-11-23T14:59:59.000Z', enforce: true }, // 4: the quota
      { at: '2026-11-23T14:59:59.100Z', enforce: true }, // quota refused
      { at: '2026-11-23T15:00:00.000Z', enforce: true }, // a new Seoul day: 1
    ];
    let withoutWaiting = 0;
    for (const step of steps) {
      now = new Date(step.at);
      const expected = await viaAwait.admit(a.caller, step.enforce);
      const held = viaNow.admitNow(b.caller, step.enforce);
      if (held !== undefined) withoutWaiting++;
      const got: Admission = held ?? (await viaNow.admit(b.caller, step.enforce));
      assert.deepEqual(got, expected, step.at);
    }
    // callsToday above read the first day; the new day's first call reads it again.
    assert.equal(withoutWaiting, steps.length - 1, 'every call but the first of the new day counted without waiting');
    assert.deepEqual(
      [await viaNow.callsToday(b.caller), await viaAwait.callsToday(a.caller)],
      [1, 1],
    );
    now = new Date('2026-11-23T14:59:59.500Z');
    assert.equal(await buffered.get(b.caller.keyId, '2026-11-23'), 4);
    await buffered.close();
  });

  it('answers a key it checked before, and no longer once the key changed (here or in another process)', async () => {
    const access = new AccessControl(store.access, new BufferedUsageCounter(store.access, 60_000), plans, clock);
    assert.deepEqual(access.authenticateNow(undefined), { ok: false, why: 'missing' });
    assert.deepEqual(access.authenticateNow('Bearer nope'), { ok: false, why: 'missing' });
    const key = await newKey('k');
    assert.equal(access.authenticateNow(`Bearer ${key}`), undefined, 'never checked: the store must be read');
    const checked = await access.authenticate(`Bearer ${key}`);
    assert.ok(checked.ok);
    assert.deepEqual(access.authenticateNow(`Bearer ${key}`), checked);
    assert.equal(access.authenticateNow(`Bearer ${generateKey().key}`), undefined, 'an unknown key is always looked up');

    // A revocation through this store empties the memory at once.
    await store.access.revokeKey(checked.caller.prefix, now.toISOString());
    assert.equal(access.authenticateNow(`Bearer ${key}`), undefined);
    const revoked = await access.authenticate(`Bearer ${key}`);
    assert.deepEqual(revoked, { ok: false, why: 'revoked', prefix: checked.caller.prefix });
    assert.deepEqual(access.authenticateNow(`Bearer ${key}`), revoked);

    // A revocation by another connection (the CLI) is seen through SQLite's data_version,
    // read at most once a millisecond.
    const other = await newKey('other');
    assert.ok((await access.authenticate(`Bearer ${other}`)).ok);
    assert.ok(access.authenticateNow(`Bearer ${other}`)?.ok);
    const cli = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    await cli.access.revokeKey(other.slice(0, 16), now.toISOString());
    await cli.close();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(access.authenticateNow(`Bearer ${other}`), undefined);
    assert.equal((await access.authenticate(`Bearer ${other}`)).ok, false);
  });
});
