import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { AccessControl, type Admission, type AuthResult, type Use } from '../../src/access/access.js';
import { nextSeoulMidnight, seoulDay, seoulIso } from '../../src/kernel/clock.js';
import { bearerToken, generateKey, hashKey, looksLikeKey, sameHash } from '../../src/access/keys.js';
import { BufferedUsageCounter, StoreUsageCounter, type UsageCounter } from '../../src/access/usage.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { AccessStore } from '../../src/store/access-store.js';
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
    // free: 3 calls a day, 2 a second. 23:59:57 Seoul, so the day resets in 3 s.
    now = new Date('2026-11-23T14:59:57.000Z');
    const auth = await access.authenticate(`Bearer ${key}`);
    assert.ok(auth.ok);
    const caller = auth.caller;
    const first = await access.admit(caller);
    assert.deepEqual([first.allowed, first.callsToday, first.resetsAt, first.resetSeconds], [true, 1, '2026-11-24T00:00:00+09:00', 3]);
    assert.equal((await access.admit(caller)).callsToday, 2);
    now = new Date('2026-11-23T14:59:58.000Z'); // next second: a fresh burst window
    assert.equal((await access.admit(caller)).callsToday, 3);
    const refused = await access.admit(caller);
    assert.deepEqual([refused.allowed, refused.refusal, refused.retryAfter], [false, 'quota_exceeded', 2]);
    assert.equal(await access.callsToday(caller), 3, 'a refused call is not counted');
    now = new Date('2026-11-23T14:59:59.000Z'); // the two above took this second's window
    const health = await access.admit(caller, 'health');
    assert.deepEqual([health.allowed, health.callsToday], [true, 4], 'health is counted but never refused for quota');
    const ping = await access.admit(caller, 'protocol');
    assert.deepEqual([ping.allowed, ping.callsToday], [true, 4], 'a protocol message takes the burst window and is not counted');
    const third = await access.admit(caller, 'protocol');
    assert.deepEqual([third.allowed, third.refusal], [false, 'rate_limited'], 'health and the ping used the burst of 2');

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

describe('AccessControl answers at once when it needs no I/O', () => {
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

  it('counts, refuses and reports exactly as when every count is read from the store', async () => {
    // The same calls on two keys: one controller's counter holds no counts in memory (every
    // admission is a promise), the other's holds them (an admission is a value once the day is read).
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

    const steps: { at: string; use: Use }[] = [
      { at: '2026-11-23T14:59:58.000Z', use: 'call' }, // 1 (the day is read first: a promise)
      { at: '2026-11-23T14:59:58.200Z', use: 'call' }, // 2
      { at: '2026-11-23T14:59:58.400Z', use: 'call' }, // burst of 2 refused, not counted
      { at: '2026-11-23T14:59:58.500Z', use: 'health' }, // burst refused too
      { at: '2026-11-23T14:59:59.000Z', use: 'health' }, // health: counted, never refused for quota (3)
      { at: '2026-11-23T14:59:59.100Z', use: 'protocol' }, // burst 2 of 2, not counted (3)
      { at: '2026-11-23T14:59:59.200Z', use: 'protocol' }, // burst refused
      { at: '2026-11-23T14:59:59.300Z', use: 'call' }, // burst refused
      { at: '2026-11-23T14:59:59.600Z', use: 'call' }, // burst refused
      { at: '2026-11-23T15:00:00.000Z', use: 'call' }, // a new Seoul day: 1 (read first: a promise)
      { at: '2026-11-23T15:00:00.500Z', use: 'call' }, // 2
    ];
    let atOnce = 0;
    for (const step of steps) {
      now = new Date(step.at);
      const viaStore = viaAwait.admit(a.caller, step.use);
      assert.ok(viaStore instanceof Promise, 'counts not held in memory: always a promise');
      const held = viaNow.admit(b.caller, step.use);
      if (!(held instanceof Promise)) atOnce++;
      const got: Admission = await held;
      assert.deepEqual(got, await viaStore, `${step.at} ${step.use}`);
    }
    assert.equal(atOnce, steps.length - 2, 'every admission but the first of each day without waiting');
    assert.deepEqual([await viaNow.callsToday(b.caller), await viaAwait.callsToday(a.caller)], [2, 2]);
    now = new Date('2026-11-23T14:59:59.500Z');
    assert.equal(await buffered.get(b.caller.keyId, '2026-11-23'), 3);
    await buffered.close();
  });

  it('answers a key it checked before at once, and no longer once the key changed (here or in another process)', async () => {
    const access = new AccessControl(store.access, new BufferedUsageCounter(store.access, 60_000), plans, clock);
    assert.deepEqual(access.authenticate(undefined), { ok: false, why: 'missing' });
    assert.deepEqual(access.authenticate('Bearer nope'), { ok: false, why: 'missing' });
    const key = await newKey('k');
    const first = access.authenticate(`Bearer ${key}`);
    assert.ok(first instanceof Promise, 'never checked: the store must be read');
    const checked = await first;
    assert.ok(checked.ok);
    assert.deepEqual(access.authenticate(`Bearer ${key}`), checked);
    assert.ok(access.authenticate(`Bearer ${generateKey().key}`) instanceof Promise, 'an unknown key is looked up');

    // A revocation through this store empties the memory at once.
    await store.access.revokeKey(checked.caller.prefix, now.toISOString());
    const afterRevoke = access.authenticate(`Bearer ${key}`);
    assert.ok(afterRevoke instanceof Promise);
    const revoked = await afterRevoke;
    assert.deepEqual(revoked, { ok: false, why: 'revoked', prefix: checked.caller.prefix });
    assert.deepEqual(access.authenticate(`Bearer ${key}`), revoked);

    // A revocation by another connection (the CLI) is seen through SQLite's data_version,
    // read at most once a millisecond.
    const other = await newKey('other');
    assert.ok((await access.authenticate(`Bearer ${other}`)).ok);
    assert.ok((access.authenticate(`Bearer ${other}`) as AuthResult).ok);
    const cli = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    await cli.access.revokeKey(other.slice(0, 16), now.toISOString());
    await cli.close();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const seen = access.authenticate(`Bearer ${other}`);
    assert.ok(seen instanceof Promise);
    assert.equal((await seen).ok, false);
  });
});

describe('cheap refusals', () => {
  const tmp = tempDir();
  let store: KyselyStore;
  let now = new Date('2026-11-23T03:00:10.000Z');
  const clock = () => now;
  const plans = { free: { daily: 100, burst: 100 }, paid: { daily: 100, burst: 100 } };
  /** Every hash the store was asked for. */
  const lookups: string[] = [];
  let spied: AccessStore;
  before(async () => {
    store = await openSqliteStore(join(tmp.dir, 'db.sqlite'));
    spied = new Proxy(store.access, {
      get(target, prop) {
        if (prop === 'keyByHash') {
          return (hash: string) => {
            lookups.push(hash);
            return target.keyByHash(hash);
          };
        }
        const value: unknown = Reflect.get(target, prop);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  });
  after(async () => {
    await store.close();
    tmp.cleanup();
  });

  it('remembers an unknown key: its second try reads nothing (a revoked one is held by the store on SQLite)', async () => {
    const access = new AccessControl(spied, new StoreUsageCounter(spied), plans, clock, { authFailuresPerMinute: 1_000 });
    const unknown = generateKey().key;
    lookups.length = 0;
    assert.deepEqual(await access.authenticate(`Bearer ${unknown}`), { ok: false, why: 'unknown' });
    assert.equal(lookups.length, 1);
    const again = access.authenticate(`Bearer ${unknown}`);
    assert.deepEqual(again, { ok: false, why: 'unknown' }, 'answered at once');
    assert.deepEqual(lookups, [hashKey(unknown)], 'one lookup for two tries');

    const k = generateKey();
    await store.access.insertKey({ prefix: k.prefix, hash: k.hash, name: 'revoked', plan: 'free', createdAt: now.toISOString() });
    await store.access.revokeKey(k.prefix, now.toISOString());
    lookups.length = 0;
    const revoked = { ok: false, why: 'revoked', prefix: k.prefix };
    assert.deepEqual(await access.authenticate(`Bearer ${k.key}`), revoked);
    assert.deepEqual(access.authenticate(`Bearer ${k.key}`), revoked, 'answered at once');
    assert.deepEqual(lookups, [k.hash]);
  });

  it('counts failed authentications per address: past the limit 429 with the wait, before any lookup; a real key still passes', async () => {
    // 3 failures a minute per address. The window opens at the first failure (03:00:10).
    const access = new AccessControl(spied, new StoreUsageCounter(spied), plans, clock, { authFailuresPerMinute: 3 });
    const k = generateKey();
    await store.access.insertKey({ prefix: k.prefix, hash: k.hash, name: 'real', plan: 'paid', createdAt: now.toISOString() });
    assert.ok((await access.authenticate(`Bearer ${k.key}`, '198.51.100.7')).ok, 'a real key, checked once');
    now = new Date('2026-11-23T03:00:10.000Z');
    assert.deepEqual(await access.authenticate(undefined, '198.51.100.7'), { ok: false, why: 'missing' }); // 1
    assert.deepEqual(await access.authenticate(`Bearer ${generateKey().key}`, '198.51.100.7'), { ok: false, why: 'unknown' }); // 2
    now = new Date('2026-11-23T03:00:20.000Z');
    assert.deepEqual(await access.authenticate('Bearer x', '198.51.100.7'), { ok: false, why: 'missing' }); // 3: the last one allowed
    // The 4th: refused as throttled until 03:01:10, 50 s from now.
    assert.deepEqual(await access.authenticate('Bearer x', '198.51.100.7'), { ok: false, why: 'throttled', retryAfter: 50 });
    lookups.length = 0;
    const guess = access.authenticate(`Bearer ${generateKey().key}`, '198.51.100.7');
    assert.deepEqual(guess, { ok: false, why: 'throttled', retryAfter: 50 }, 'answered at once');
    assert.equal(lookups.length, 0, 'a new key from a throttled address is not looked up');
    assert.ok((await access.authenticate(`Bearer ${k.key}`, '198.51.100.7')).ok, 'a key that matched before still passes');
    assert.ok((await access.authenticate(`Bearer ${generateKey().key}`, '198.51.100.8')).ok === false, 'another address is not throttled');
    assert.equal(((await access.authenticate(`Bearer ${generateKey().key}`, '198.51.100.8')) as { why: string }).why, 'unknown');
    now = new Date('2026-11-23T03:01:09.000Z');
    assert.deepEqual(await access.authenticate('Bearer x', '198.51.100.7'), { ok: false, why: 'throttled', retryAfter: 1 });
    now = new Date('2026-11-23T03:01:10.000Z'); // a new window
    assert.deepEqual(await access.authenticate('Bearer x', '198.51.100.7'), { ok: false, why: 'missing' });
  });
});
