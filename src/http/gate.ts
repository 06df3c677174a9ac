// The door-independent part of a tool call's admission: authenticate the key, count the
// call, and build the account the health tool reports. REST and MCP both call `admitCall`
// once per tool call, so a key's usage is the same whichever door it comes through.

import { DependencyDown, type AccessControl, type Admission, type AuthResult, type Caller, type PlanLimits } from '../access/access.js';
import { isOutage } from '../store/outage.js';
import { nextSeoulMidnight, seoulIso, type Clock } from '../access/clock.js';
import { ApiError, dependencyUnavailable } from '../tools/errors.js';
import type { Account } from '../tools/tool.js';

export type Gate =
  | { ok: true; account: Account; caller: Caller | null; admission: Admission | null }
  | { ok: false; error: ApiError; caller: Caller | null; admission: Admission | null };

const REASONS = { unknown: 'the key is not known', revoked: 'the key has been revoked' } as const;

/**
 * A failure that is a dependency being away, as the 503 both doors answer with; null for any
 * other error. Tools read the database on demand (price history, valuation bands).
 */
export function outageError(err: unknown): ApiError | null {
  if (err instanceof DependencyDown) return dependencyUnavailable(err.dependency);
  if (isOutage(err)) return dependencyUnavailable('database');
  return null;
}

/** `auth` is the request's authentication, done once per HTTP request by the door. */
export async function admitCall(access: AccessControl, clock: Clock, auth: AuthResult, toolName: string): Promise<Gate> {
  if (!auth.ok) return refusedKey(clock, auth, toolName);
  return gateOf(auth.caller, await access.admit(auth.caller, toolName !== 'health'));
}

/**
 * `admitCall` without waiting, when the counts are in this process's memory
 * (`AccessControl.admitNow`); undefined, with nothing counted, when they are not.
 */
export function admitCallNow(access: AccessControl, clock: Clock, auth: AuthResult, toolName: string): Gate | undefined {
  if (!auth.ok) return refusedKey(clock, auth, toolName);
  const admission = access.admitNow(auth.caller, toolName !== 'health');
  return admission === undefined ? undefined : gateOf(auth.caller, admission);
}

function refusedKey(clock: Clock, auth: Extract<AuthResult, { ok: false }>, toolName: string): Gate {
  // health exists to tell a caller whether its key works: a well-formed but unknown or
  // revoked key gets valid:false there (a missing key is still 401). Every other call refuses it.
  if (toolName === 'health' && auth.why !== 'missing') {
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
  const detail =
    auth.why === 'missing'
      ? 'send a valid API key as `Authorization: Bearer <key>`'
      : `the API key is not accepted: ${REASONS[auth.why]}`;
  return { ok: false, error: new ApiError('unauthorized', detail), caller: null, admission: null };
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
