// Who may call, and how much: the access half of the one admission path both doors take
// (src/http/gate.ts). `authenticate` once per HTTP request, then `admit` once per call (a REST
// request, each MCP message), so a key's limits are the same whichever door it uses. Each
// returns its answer at once when it needs no I/O (a key this process has checked, counts held
// in memory) and a promise otherwise, so the common call waits for nothing.

import { LRUCache } from 'lru-cache';
import { isOutage } from '../store/outage.js';
import type { AccessStore, ApiKeyRecord, Plan } from '../store/access-store.js';
import { bearerToken, hashKey, looksLikeKey, sameHash, tokenHash } from './keys.js';
import { nextSeoulMidnight, seoulDay, seoulIso, type Clock } from '../kernel/clock.js';
import { AddressLimit } from './address-limit.js';
import type { BurstDecision, UsageCounter } from './usage.js';

export interface PlanLimits {
  /** Calls per Seoul calendar day. */
  daily: number;
  /** Calls per second (a fixed one-second window). */
  burst: number;
}

export type PlanTable = Record<Plan, PlanLimits>;

export interface Caller {
  keyId: number;
  prefix: string;
  plan: Plan;
}

export type AuthResult =
  | { ok: true; caller: Caller }
  /** `missing`: no or malformed header. `unknown`/`revoked`: a well-formed key we refuse. */
  | { ok: false; why: 'missing' | 'unknown' | 'revoked'; prefix?: string }
  /** The client address has failed to authenticate too often this minute: retry after `retryAfter` s. */
  | { ok: false; why: 'throttled'; retryAfter: number };

/**
 * What a call costs. `call`: a tool call, one of the key's burst window and one of its daily
 * quota. `health`: one of the burst window, counted in the day but never refused for quota.
 * `protocol`: any other MCP message (initialize, ping, tools/list, resources/*, prompts/*,
 * notifications), one of the burst window and not counted in the day.
 */
export type Use = 'call' | 'health' | 'protocol';

/** Limits of the admission path besides the plans' (docs/security.md lists them with their figures). */
export interface AdmissionLimits {
  /** Failed authentications one client address may have per minute before it gets 429. */
  authFailuresPerMinute: number;
}

export const DEFAULT_ADMISSION_LIMITS: AdmissionLimits = { authFailuresPerMinute: 30 };

/** How many hashes of unknown keys are remembered, and for how long. */
export const REFUSED_KEY_CACHE = { max: 10_000, ttlMs: 60_000 } as const;

export interface Admission {
  allowed: boolean;
  refusal?: 'quota_exceeded' | 'rate_limited';
  callsToday: number;
  limits: PlanLimits;
  resetsAt: string;
  /** Seconds until the daily window resets. */
  resetSeconds: number;
  /** Seconds to wait before retrying, when refused. */
  retryAfter?: number;
}

const TOUCH_INTERVAL_MS = 60_000;

/** The database or Redis did not answer an authentication or a count (a door answers 503). */
export class DependencyDown extends Error {
  constructor(readonly dependency: string, options?: { cause?: unknown }) {
    super(`${dependency} unreachable`, options);
    this.name = 'DependencyDown';
  }
}

async function needing<T>(dependency: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw isOutage(err) ? new DependencyDown(dependency, { cause: err }) : err;
  }
}

/** A well-formed key the store refuses. */
type Refused = { ok: false; why: 'unknown' | 'revoked'; prefix?: string };

/**
 * What a bearer credential other than an API key (an OAuth access token, src/oauth) authenticates
 * as: a key's result, or `forbidden` (a real token for another resource or scope).
 */
export type BearerAuth = AuthResult | { ok: false; why: 'forbidden'; prefix?: string };

export class AccessControl {
  private readonly lastTouched = new Map<number, number>();
  /**
   * SHA-256 of keys that matched a stored key (a pure function of the key, so never stale): a
   * busy key is hashed once, not on every call. Bounded; wrong guesses are not kept here.
   */
  private readonly hashes = new LRUCache<string, string>({ max: 10_000 });
  /**
   * Hashes of keys the store does not hold, for a minute: a client repeating a wrong key costs
   * a hash, not a database query. Bounded, so random keys cannot grow it. Keys are never
   * deleted, only revoked, and a new key is random, so a key unknown now is unknown for good;
   * a revoked key is not kept here (a restore may bring it back, and it is held in `hashes`).
   */
  private readonly refused = new LRUCache<string, Refused>({ max: REFUSED_KEY_CACHE.max, ttl: REFUSED_KEY_CACHE.ttlMs });
  /**
   * Hashes (`tokenHash`) of bearer tokens that authenticated (`authenticateToken`), so such a
   * token is still looked up from a throttled address, as a key in `hashes` is. Bounded.
   */
  private readonly tokens = new LRUCache<string, true>({ max: 10_000 });
  private readonly failures: AddressLimit;

  constructor(
    private readonly store: AccessStore,
    private readonly usage: UsageCounter,
    private readonly plans: PlanTable,
    private readonly clock: Clock,
    limits: AdmissionLimits = DEFAULT_ADMISSION_LIMITS,
  ) {
    this.failures = new AddressLimit(limits.authFailuresPerMinute);
  }

  /**
   * Who sends `authorization` (the raw header), from client `address`. At once, without I/O,
   * for a missing or malformed header, a throttled address, an unknown key remembered, and a key
   * this process has checked that the store still holds in memory (`AccessStore.knownKey`,
   * emptied by any change to a key); otherwise a promise (the store is read). Every refusal
   * counts against the address (`AddressLimit`); once that is used up, keys this process has
   * not seen match are refused as `throttled` before they are hashed or looked up. Rejects with
   * `DependencyDown` when the store does not answer.
   */
  authenticate(authorization: string | undefined, address = ''): AuthResult | Promise<AuthResult> {
    const token = bearerToken(authorization);
    if (token === null || !looksLikeKey(token)) return this.refuse(address, { ok: false, why: 'missing' });
    const known = this.hashes.get(token);
    if (known !== undefined) {
      // A token is in `hashes` only once its hash matched a stored key's in constant time, and
      // the store's memory is keyed by that same hash: nothing is left to compare. It was a real
      // key, so it is looked up even from a throttled address.
      const key = this.store.knownKey?.(known);
      return key === undefined ? this.lookUp(token, known, address) : this.resultOf(key, address);
    }
    const wait = this.failures.blocked(address, this.clock().getTime());
    if (wait !== null) return { ok: false, why: 'throttled', retryAfter: wait };
    const hash = hashKey(token);
    const refused = this.refused.get(hash);
    if (refused !== undefined) return this.refuse(address, refused);
    return this.lookUp(token, hash, address);
  }

  /**
   * A bearer `token` that is not an API key (an OAuth access token), held to the same refusal
   * path as keys: from an address that used its failures up it is refused as `throttled` before
   * `lookUp` runs (unless this process has seen it authenticate); a token remembered as unknown
   * (`REFUSED_KEY_CACHE`, the same memory as unknown keys, by the token's SHA-256) is refused
   * without a lookup; an unknown or revoked one counts against the address like a key's failure.
   * `forbidden` (a real token for another resource or scope) is not a failed authentication.
   * `lookUp` may reject with `DependencyDown`.
   */
  authenticateToken(token: string, address: string, lookUp: () => BearerAuth | Promise<BearerAuth>): BearerAuth | Promise<BearerAuth> {
    const hash = tokenHash(token);
    if (!this.tokens.has(hash)) {
      const wait = this.failures.blocked(address, this.clock().getTime());
      if (wait !== null) return { ok: false, why: 'throttled', retryAfter: wait };
      const refused = this.refused.get(hash);
      if (refused !== undefined) return this.refuse(address, refused);
    }
    const settled = (result: BearerAuth): BearerAuth => {
      if (result.ok) {
        this.tokens.set(hash, true);
        return result;
      }
      if (result.why === 'unknown') {
        // Unknown or expired: a token is random and its expiry never moves, so it stays refused.
        this.tokens.delete(hash);
        this.refused.set(hash, { ok: false, why: 'unknown' });
      }
      return result.why === 'unknown' || result.why === 'revoked' || result.why === 'missing' ? this.refuse(address, result) : result;
    };
    const result = lookUp();
    return result instanceof Promise ? result.then(settled) : settled(result);
  }

  private async lookUp(token: string, hash: string, address: string): Promise<AuthResult> {
    // The lookup is by hash (an index probe); the constant-time comparison guards against
    // the engine's own string comparison leaking how much of the hash matched.
    const key = await needing('database', this.store.keyByHash(hash));
    if (key === null || !sameHash(key.hash, hash)) {
      const unknown: Refused = { ok: false, why: 'unknown' };
      this.refused.set(hash, unknown);
      return this.refuse(address, unknown);
    }
    this.hashes.set(token, hash);
    return this.resultOf(key, address);
  }

  private resultOf(key: ApiKeyRecord, address: string): AuthResult {
    if (key.revokedAt !== null) return this.refuse(address, { ok: false, why: 'revoked', prefix: key.prefix });
    return { ok: true, caller: { keyId: key.id, prefix: key.prefix, plan: key.plan } };
  }

  /** `result`, counted against the address; `throttled` instead when that used its failures up. */
  private refuse(address: string, result: Extract<AuthResult, { ok: false }>): AuthResult {
    const wait = this.failures.count(address, this.clock().getTime());
    return wait === null ? result : { ok: false, why: 'throttled', retryAfter: wait };
  }

  limitsOf(plan: Plan): PlanLimits {
    return this.plans[plan];
  }

  /**
   * Meters and limits one call of `caller` (see `Use`): the burst window first, then the day's
   * count, which takes the call only while under the quota (`health` is never refused for
   * quota), so a refused call is not counted. At once when the counter holds the key's count
   * for the day in memory (`UsageCounter.held`), otherwise a promise; rejects with
   * `DependencyDown` when the database or Redis does not answer.
   */
  admit(caller: Caller, use: Use = 'call'): Admission | Promise<Admission> {
    const now = this.clock();
    const { day } = this.calendar(now);
    const limits = this.plans[caller.plan];
    const held = this.usage.held;
    const count = held?.day(caller.keyId, day);
    if (held === undefined || count === undefined) return needing(this.usage.dependency, this.count(caller, use, now));
    const burst = held.takeBurst(caller.keyId, limits.burst, now.getTime());
    if (!burst.allowed) return this.refusedBurst(now, limits, count.calls, burst);
    if (use === 'protocol') return this.uncounted(now, limits, count.calls);
    return this.counted(caller, now, limits, count.increment(use === 'call' ? limits.daily : Number.POSITIVE_INFINITY));
  }

  private async count(caller: Caller, use: Use, now: Date): Promise<Admission> {
    const limits = this.plans[caller.plan];
    const { day } = this.calendar(now);
    const burst = await this.usage.takeBurst(caller.keyId, limits.burst, now.getTime());
    if (!burst.allowed) return this.refusedBurst(now, limits, await this.usage.get(caller.keyId, day), burst);
    if (use === 'protocol') return this.uncounted(now, limits, await this.usage.get(caller.keyId, day));
    const count = await this.usage.increment(caller.keyId, day, use === 'call' ? limits.daily : Number.POSITIVE_INFINITY);
    return this.counted(caller, now, limits, count);
  }

  /** The admission of a message that takes the burst window only (`protocol`). */
  private uncounted(now: Date, limits: PlanLimits, callsToday: number): Admission {
    const { resetsAt, resetSeconds } = this.window(now);
    return { limits, resetsAt, resetSeconds, allowed: true, callsToday };
  }

  private refusedBurst(now: Date, limits: PlanLimits, callsToday: number, burst: BurstDecision): Admission {
    const { resetsAt, resetSeconds } = this.window(now);
    return { limits, resetsAt, resetSeconds, allowed: false, refusal: 'rate_limited', callsToday, retryAfter: burst.retryAfterSeconds };
  }

  /** The admission of a call the daily count took (`count`, the new count) or refused (null). */
  private counted(caller: Caller, now: Date, limits: PlanLimits, count: number | null): Admission {
    const { resetsAt, resetSeconds } = this.window(now);
    if (count === null) {
      return { limits, resetsAt, resetSeconds, allowed: false, refusal: 'quota_exceeded', callsToday: limits.daily, retryAfter: resetSeconds };
    }
    this.touch(caller.keyId, now);
    return { limits, resetsAt, resetSeconds, allowed: true, callsToday: count };
  }

  /** When the daily window resets, as text and in seconds from `now`. */
  private window(now: Date): { resetsAt: string; resetSeconds: number } {
    const { reset, resetsAt } = this.calendar(now);
    return { resetsAt, resetSeconds: Math.max(1, Math.ceil((reset - now.getTime()) / 1000)) };
  }

  /** The Seoul day, its end and that end as text, worked out once per second of the clock. */
  private calendar(now: Date): { second: number; day: string; reset: number; resetsAt: string } {
    const second = Math.floor(now.getTime() / 1000);
    if (this.calendarCache?.second !== second) {
      const reset = nextSeoulMidnight(now);
      this.calendarCache = { second, day: seoulDay(now), reset: reset.getTime(), resetsAt: seoulIso(reset) };
    }
    return this.calendarCache;
  }

  private calendarCache: { second: number; day: string; reset: number; resetsAt: string } | undefined;

  /**
   * Records when a key was last used, at most once a minute per key: `keys list` shows it to
   * the minute, and a busy key does not pay a database write on every call.
   */
  private touch(keyId: number, now: Date): void {
    const last = this.lastTouched.get(keyId);
    if (last !== undefined && now.getTime() - last < TOUCH_INTERVAL_MS && now.getTime() >= last) return;
    if (this.lastTouched.size > 100_000) this.lastTouched.clear();
    this.lastTouched.set(keyId, now.getTime());
    void this.store.touchKey(keyId, now.toISOString()).catch(() => undefined);
  }

  async callsToday(caller: Caller): Promise<number> {
    return this.usage.get(caller.keyId, seoulDay(this.clock()));
  }
}
