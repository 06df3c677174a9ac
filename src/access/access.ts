// Who may call, and how much. Both doors (REST and MCP) call `authenticate` and then
// `admit` once per counted tool call, so a key's quota is the same whichever door it uses.

import { isOutage } from '../store/outage.js';
import type { AccessStore, ApiKeyRecord, Plan } from '../store/access-store.js';
import { bearerToken, hashKey, looksLikeKey, sameHash } from './keys.js';
import { nextSeoulMidnight, seoulDay, seoulIso, type Clock } from './clock.js';
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
  | { ok: false; why: 'missing' | 'unknown' | 'revoked'; prefix?: string };

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

function resultOf(key: ApiKeyRecord): AuthResult {
  if (key.revokedAt !== null) return { ok: false, why: 'revoked', prefix: key.prefix };
  return { ok: true, caller: { keyId: key.id, prefix: key.prefix, plan: key.plan } };
}

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

export class AccessControl {
  private readonly lastTouched = new Map<number, number>();
  /**
   * SHA-256 of keys seen recently (a pure function of the key, so never stale): a busy key is
   * hashed once, not on every call. Bounded; wrong guesses are not kept.
   */
  private readonly hashes = new Map<string, string>();

  constructor(
    private readonly store: AccessStore,
    private readonly usage: UsageCounter,
    private readonly plans: PlanTable,
    private readonly clock: Clock,
  ) {}

  async authenticate(authorization: string | undefined): Promise<AuthResult> {
    const known = this.authenticateNow(authorization);
    if (known !== undefined) return known;
    const token = bearerToken(authorization) as string; // authenticateNow answered every malformed one
    const hash = this.hashes.get(token) ?? hashKey(token);
    // The lookup is by hash (an index probe); the constant-time comparison guards against
    // the engine's own string comparison leaking how much of the hash matched.
    const key = await needing('database', this.store.keyByHash(hash));
    if (key === null || !sameHash(key.hash, hash)) return { ok: false, why: 'unknown' };
    if (this.hashes.size >= 10_000) this.hashes.clear();
    this.hashes.set(token, hash);
    return resultOf(key);
  }

  /**
   * `authenticate` without waiting, when the answer needs no I/O: a missing or malformed
   * header, or a key this process has checked and the store still holds in memory
   * (`AccessStore.knownKey`, emptied by any change to a key). Undefined otherwise.
   */
  authenticateNow(authorization: string | undefined): AuthResult | undefined {
    const token = bearerToken(authorization);
    if (token === null || !looksLikeKey(token)) return { ok: false, why: 'missing' };
    const hash = this.hashes.get(token);
    // A token is in `hashes` only once its hash matched a stored key's in constant time, and
    // the store's memory is keyed by that same hash: nothing is left to compare.
    const key = hash === undefined ? undefined : this.store.knownKey?.(hash);
    return key === undefined ? undefined : resultOf(key);
  }

  limitsOf(plan: Plan): PlanLimits {
    return this.plans[plan];
  }

  /**
   * Counts one call. `enforce: false` (health) always admits and still counts. A refused
   * call is not counted: the daily increment is conditional on being under the quota.
   */
  async admit(caller: Caller, enforce = true): Promise<Admission> {
    return this.admitNow(caller, enforce) ?? needing(this.usage.dependency, this.count(caller, enforce));
  }

  /**
   * `admit` without waiting, when the counter holds the key's count for the day in memory
   * (`UsageCounter.held`); undefined, with nothing counted, when it does not.
   */
  admitNow(caller: Caller, enforce = true): Admission | undefined {
    const now = this.clock();
    const { day } = this.calendar(now);
    const held = this.usage.held;
    const count = held?.day(caller.keyId, day);
    if (held === undefined || count === undefined) return undefined;
    const limits = this.plans[caller.plan];
    if (enforce) {
      const burst = held.takeBurst(caller.keyId, limits.burst, now.getTime());
      if (!burst.allowed) return this.refusedBurst(now, limits, count.calls, burst);
    }
    return this.counted(caller, now, limits, count.increment(enforce ? limits.daily : Number.POSITIVE_INFINITY));
  }

  private async count(caller: Caller, enforce: boolean): Promise<Admission> {
    const now = this.clock();
    const limits = this.plans[caller.plan];
    const { day } = this.calendar(now);
    if (enforce) {
      const burst = await this.usage.takeBurst(caller.keyId, limits.burst, now.getTime());
      if (!burst.allowed) return this.refusedBurst(now, limits, await this.usage.get(caller.keyId, day), burst);
    }
    const count = await this.usage.increment(caller.keyId, day, enforce ? limits.daily : Number.POSITIVE_INFINITY);
    return this.counted(caller, now, limits, count);
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
