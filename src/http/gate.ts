// The one admission path of both doors: authenticate the key (once per HTTP request, before its
// body is read), then meter and limit each call (a REST request, each MCP message), then run.
// REST takes it in a route hook before the handler (rest.ts), MCP in its request hook and before
// each message is dispatched (mcp/admission.ts). Each step returns its answer at once when it needs no I/O
// (a key this process has checked, counts held in memory) and a promise otherwise (`andThen`
// chains the two cases without an await on the fast path). Refusals and outages come back as
// values (`Identity`, `Gate`); the door answers them in its own form (problem+json, JSON-RPC).

import { DependencyDown, type AccessControl, type Admission, type AuthResult, type BearerAuth, type Caller, type PlanLimits, type Use } from '../access/access.js';
import { AddressShare } from '../access/address-limit.js';
import { bearerToken, looksLikeKey } from '../access/keys.js';
import { ACCESS_TOKEN_PREFIX } from '../oauth/model.js';
import { isOutage } from '../store/outage.js';
import { nextSeoulMidnight, seoulIso, type Clock } from '../kernel/clock.js';
import { ApiError, dependencyUnavailable } from '../kernel/errors.js';
import type { Account } from '../tools/tool.js';
import type { TokenAuth } from '../oauth/service.js';

/** A value now, or later. */
export type Eventually<T> = T | Promise<T>;

/** `fn` applied to `value`: at once when it is a value, after it settles when it is a promise. */
export function andThen<T, U>(value: Eventually<T>, fn: (v: T) => Eventually<U>): Eventually<U> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}

/** Step one: who calls (`auth`, which may still be a refused key: `health` answers those), or a refusal. */
export type Identity = { ok: true; auth: AuthResult } | { ok: false; error: ApiError };

/** Steps two and three: the call may run (with the account health reports), or is refused. */
export type Gate =
  | { ok: true; account: Account; caller: Caller | null; admission: Admission | null }
  | { ok: false; error: ApiError; caller: Caller | null; admission: Admission | null };

/**
 * What a call is, for metering: a tool by name (a REST route, an MCP tools/call of a registered
 * tool), or null for any other MCP message (initialize, ping, lists, resources, prompts,
 * notifications).
 */
export type CallOf = string | null;

const REASONS = { unknown: 'the key is not known', revoked: 'the key has been revoked' } as const;
const MISSING = 'send a valid API key as `Authorization: Bearer <key>`';

/**
 * A failure that is a dependency being away, as the 503 both doors answer with; null for any
 * other error. The one mapping of outages: the gate's (key lookup, counts) and a tool's own
 * reads of the database (price history, valuation bands) both go through it.
 */
export function outageError(err: unknown): ApiError | null {
  if (err instanceof DependencyDown) return dependencyUnavailable(err.dependency);
  if (isOutage(err)) return dependencyUnavailable('database');
  return null;
}

/** `work`, with an outage it meets (thrown or rejected) turned into `onOutage`'s value. */
function outageAs<T>(work: () => Eventually<T>, onOutage: (error: ApiError) => T): Eventually<T> {
  const mapped = (err: unknown): T => {
    const outage = outageError(err);
    if (outage === null) throw err;
    return onOutage(outage);
  };
  try {
    const value = work();
    return value instanceof Promise ? value.catch(mapped) : value;
  } catch (err) {
    return mapped(err);
  }
}

/**
 * Step one, once per HTTP request and before its body is read: the key in `authorization`, sent
 * from client `address`. A missing or malformed header is refused here (401), as is an address
 * that failed too often (429) and a store that does not answer (503); a well-formed unknown or
 * revoked key is not (a lone `health` call answers it with `valid: false`). With `tokens` (the
 * MCP door with OAuth on), an OAuth access token is admitted as the key it acts as, through the
 * same refusal path (`AccessControl.authenticateToken`: counted per address, remembered when
 * unknown, answered late).
 */
export function identify(access: AccessControl, authorization: string | undefined, address: string, tokens?: BearerTokens | null): Eventually<Identity> {
  return outageAs(
    () => {
      const token = tokens ? accessToken(authorization) : null;
      if (token === null || !tokens) return andThen(access.authenticate(authorization, address), identityOf);
      // The OAuth service answers null only for what is not its token, which `accessToken` ruled out.
      return andThen(
        access.authenticateToken(token, address, () => tokens.authenticate(authorization) ?? { ok: false, why: 'unknown' }),
        tokenIdentity,
      );
    },
    (error): Identity => ({ ok: false, error }),
  );
}

/** The credential of `authorization` when it is an OAuth access token (`mcp_at_...`, never an API key); null otherwise. */
function accessToken(authorization: string | undefined): string | null {
  const token = bearerToken(authorization);
  return token !== null && token.startsWith(ACCESS_TOKEN_PREFIX) && !looksLikeKey(token) ? token : null;
}

/**
 * OAuth access tokens (src/oauth), for the door that takes them (MCP): the key a bearer token
 * acts as; null, at once, when the credential is not such a token (an API key, or none), which
 * the key path then decides.
 */
export interface BearerTokens {
  authenticate(authorization: string | undefined): TokenAuth | null | Promise<TokenAuth>;
}

/**
 * A token is refused outright (401, 429 for a throttled address, or 403 for another resource or
 * scope); `health` does not answer it. The 401 and the 429 are failed authentications (answered late).
 */
function tokenIdentity(auth: BearerAuth): Identity {
  if (auth.ok) return { ok: true, auth };
  if (auth.why === 'forbidden') return { ok: false, error: new ApiError('forbidden', 'the access token is not for this resource or lacks its scope') };
  if (auth.why === 'throttled' || auth.why === 'missing') return { ok: false, error: keyRefusal(auth) };
  const why = auth.why === 'revoked' ? 'its key has been revoked' : 'it is unknown or has expired';
  const error = new ApiError('unauthorized', `the access token is not accepted: ${why}; sign in again`);
  failedAuthentications.add(error);
  return { ok: false, error };
}

function identityOf(auth: AuthResult): Identity {
  if (auth.ok || auth.why === 'unknown' || auth.why === 'revoked') return { ok: true, auth };
  return { ok: false, error: keyRefusal(auth) };
}

/** Refusals of a failed authentication (`keyRefusal`), which `RefusalDelay` answers late. */
const failedAuthentications = new WeakSet<ApiError>();

/** The refusal of a key that failed: 401, or 429 for an address that failed too often. */
export function keyRefusal(auth: Extract<AuthResult, { ok: false }>): ApiError {
  const error =
    auth.why === 'throttled'
      ? new ApiError('rate_limited', 'too many failed authentications from this address; wait before trying again', { retryAfter: auth.retryAfter })
      : new ApiError('unauthorized', auth.why === 'missing' ? MISSING : `the API key is not accepted: ${REASONS[auth.why]}`);
  failedAuthentications.add(error);
  return error;
}

/** Steps two and three for one call: meter it and hold it to the key's limits. */
export function admit(access: AccessControl, clock: Clock, auth: AuthResult, call: CallOf): Eventually<Gate> {
  if (!auth.ok) return refusedKey(clock, auth, call);
  const use: Use = call === null ? 'protocol' : call === 'health' ? 'health' : 'call';
  return outageAs(
    () => andThen(access.admit(auth.caller, use), (admission) => gateOf(auth.caller, admission)),
    (error): Gate => ({ ok: false, error, caller: auth.caller, admission: null }),
  );
}

/** A refusal from step one as a gate, for a door that answers both alike. */
export function refused(error: ApiError): Gate {
  return { ok: false, error, caller: null, admission: null };
}

function refusedKey(clock: Clock, auth: Extract<AuthResult, { ok: false }>, call: CallOf): Gate {
  // health exists to tell a caller whether its key works: a well-formed but unknown or
  // revoked key gets valid:false there. Every other call refuses it.
  if (call === 'health' && (auth.why === 'unknown' || auth.why === 'revoked')) {
    const account: Account = {
      valid: false,
      plan: null,
      keyPrefix: auth.prefix ?? null,
      callsToday: 0,
      dailyQuota: null,
      resetsAt: seoulIso(nextSeoulMidnight(clock())),
      reason: REASONS[auth.why],
    };
    return { ok: true, account, caller: null, admission: null };
  }
  return refused(keyRefusal(auth));
}

function gateOf(caller: Caller, admission: Admission): Gate {
  if (!admission.allowed) {
    const detail =
      admission.refusal === 'quota_exceeded'
        ? `the daily quota of ${admission.limits.daily} calls for the ${caller.plan} plan is used up; it resets at ${admission.resetsAt}`
        : `more than ${admission.limits.burst} calls in one second; slow down`;
    const error = new ApiError(admission.refusal ?? 'rate_limited', detail, { retryAfter: admission.retryAfter ?? 1 });
    return { ok: false, error, caller, admission };
  }
  const account: Account = {
    valid: true,
    plan: caller.plan,
    keyPrefix: caller.prefix,
    callsToday: admission.callsToday,
    dailyQuota: admission.limits.daily,
    resetsAt: admission.resetsAt,
  };
  return { ok: true, account, caller, admission };
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), structured-field syntax. */
export function rateLimitHeaders(admission: Admission): Record<string, string> {
  const remaining = Math.max(0, admission.limits.daily - admission.callsToday);
  return {
    'ratelimit-policy': policyOf(admission.limits),
    ratelimit: `"daily";r=${remaining};t=${admission.resetSeconds}`,
  };
}

const policies = new WeakMap<PlanLimits, string>();

/** The policy text of a plan's limits (the same object for every call of that plan). */
function policyOf(limits: PlanLimits): string {
  let policy = policies.get(limits);
  if (policy === undefined) {
    policy = `"daily";q=${limits.daily};w=86400, "burst";q=${limits.burst};w=1`;
    policies.set(limits, policy);
  }
  return policy;
}

/**
 * Failed authentications answered late: a refused key or a throttled address gets its 401 or 429
 * after `delayMs`, so a flood that waits for each answer (one request per connection at a time,
 * as HTTP/1.1 clients do) sends one request per connection per delay instead of as many as the
 * server can refuse. At most `maxHeld` answers wait at once, and at most `maxHeldPerAddress` of
 * one client address (so one address cannot take every place and leave other floods answered at
 * once); past either, a refusal is answered at once and its connection closed, so held answers
 * cannot grow without bound.
 */
export class RefusalDelay {
  static readonly MAX_HELD = 1_000;
  static readonly MAX_HELD_PER_ADDRESS = 100;
  private held = 0;
  private readonly heldBy: AddressShare;

  constructor(
    readonly delayMs: number,
    private readonly maxHeld = RefusalDelay.MAX_HELD,
    maxHeldPerAddress = RefusalDelay.MAX_HELD_PER_ADDRESS,
  ) {
    this.heldBy = new AddressShare(maxHeldPerAddress);
  }

  /** Runs `answer` after the delay (or at once, with `Connection: close` on `reply`, when full or `address` has its share). */
  hold(reply: { header(name: string, value: string): unknown }, address: string, answer: () => void): void {
    if (this.delayMs <= 0) return answer();
    if (this.held >= this.maxHeld || !this.heldBy.take(address)) {
      reply.header('connection', 'close');
      return answer();
    }
    this.held += 1;
    setTimeout(() => {
      this.held -= 1;
      this.heldBy.release(address);
      answer();
    }, this.delayMs).unref();
  }

  /** Runs `answer` for refusal `error` to client `address`: after the delay when it is a failed authentication, at once otherwise. */
  refuse(reply: { header(name: string, value: string): unknown }, address: string, error: ApiError, answer: () => void): void {
    if (failedAuthentications.has(error)) this.hold(reply, address, answer);
    else answer();
  }
}

/**
 * A callback-style Fastify hook's step that may or may not wait: `pass` gets `work`'s value at
 * once when it is one (no promise, no microtask) or once it settles; a throw or rejection goes
 * to `done` as the hook's error.
 */
export function settle<T>(work: () => Eventually<T>, pass: (value: T) => void, done: (err?: Error) => void): void {
  let value: Eventually<T>;
  try {
    value = work();
  } catch (err) {
    return done(err as Error);
  }
  if (value instanceof Promise) value.then(pass, done);
  else pass(value);
}
