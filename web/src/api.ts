// The public REST API as the page uses it: the user's key from localStorage as a Bearer
// token, problem+json errors turned into ApiProblem, and one in-memory copy per URL for the
// life of the page (the data changes hourly at most; switching tabs should not refetch).

import { isLoopbackHost } from '../../src/http/loopback.js';

const KEY_STORAGE = 'krus-dashboard.apiKey';
const AS_OF_STORAGE = 'krus-dashboard.asOf';
const BASE = '/api/public/v2';

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    /** The parameter an invalid_parameter answer names. */
    readonly parameter: string | null = null,
  ) {
    super(detail);
  }
}

export function storedKey(): string | null {
  const key = localStorage.getItem(KEY_STORAGE);
  return key === null || key.trim() === '' ? null : key;
}

export function storeKey(key: string | null): void {
  if (key === null) localStorage.removeItem(KEY_STORAGE);
  else localStorage.setItem(KEY_STORAGE, key.trim());
  responses.clear();
}

/**
 * The sign-in link `serve` prints for the demo on a loopback address (`/#key=sk_...`): the key
 * comes in the fragment, which the browser never sends to a server. It is kept like a key typed
 * in, and the fragment is replaced at once so the key leaves the address bar and the history.
 * Only on a loopback host: a link to another host cannot sign a visitor in with someone's key.
 */
export function adoptKeyFromFragment(): void {
  const m = /^#key=([^&]+)$/.exec(location.hash);
  if (m === null) return;
  if (isLoopbackHost(location.hostname)) storeKey(decodeURIComponent(m[1] ?? ''));
  history.replaceState(null, '', `${location.pathname}${location.search}#/rankings`);
}

type Query = Record<string, string | number | undefined>;

const responses = new Map<string, Promise<unknown>>();

/**
 * The past day the pages look at (`YYYY-MM-DD`), or null for today. Kept for the tab
 * (sessionStorage): it follows the user from rankings to a stock and back, and a new tab opens
 * on today's data.
 */
export function viewingAsOf(): string | null {
  const day = sessionStorage.getItem(AS_OF_STORAGE);
  return day !== null && /^\d{4}-\d{2}-\d{2}$/.test(day) ? day : null;
}

export function setViewingAsOf(day: string | null): void {
  if (day === null || day === '') sessionStorage.removeItem(AS_OF_STORAGE);
  else sessionStorage.setItem(AS_OF_STORAGE, day);
}

/** The endpoints that answer as of a day (the stock tools and lists); the exports and health do not. */
const AS_OF_PATHS = /^\/(stocks|rankings|screen)(\/|$)/;

export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const qs = params.toString();
  return `${BASE}${path}${qs ? `?${qs}` : ''}`;
}

/**
 * GET one endpoint; the same URL is fetched once per page load unless it failed. A stock
 * endpoint is asked as of the day the user chose (`viewingAsOf`), if any.
 */
export function api<T>(path: string, query: Query = {}): Promise<T> {
  const asOf = viewingAsOf();
  const url = apiUrl(path, asOf !== null && AS_OF_PATHS.test(path) ? { ...query, asOf } : query);
  let pending = responses.get(url);
  if (pending === undefined) {
    pending = fetchJson(url);
    responses.set(url, pending);
    // A failure (bad key, rate limit) is not remembered: the next call tries again.
    pending.catch(() => responses.delete(url));
  }
  return pending as Promise<T>;
}

/**
 * The account of `key` (GET /health with it), or the ApiProblem the service answers: a key is
 * tried before it is kept, so a mistyped one never replaces the field it was typed in.
 */
export function checkKey<T>(key: string): Promise<T> {
  return fetchJson(apiUrl('/health'), false, key.trim()) as Promise<T>;
}

async function fetchJson(url: string, retried = false, given: string | null = null): Promise<unknown> {
  const key = given ?? storedKey();
  if (key === null) throw new ApiProblem(401, 'no_key', 'no API key');
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
  // The burst limit is per second: wait as told, once, rather than show an error for a
  // page that fires its few requests together.
  if (res.status === 429 && !retried) {
    const wait = Number(res.headers.get('retry-after') ?? '1');
    if (Number.isFinite(wait) && wait <= 5) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 0.2) * 1000));
      return fetchJson(url, true, given);
    }
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const problem = (body ?? {}) as { code?: unknown; detail?: unknown; parameter?: unknown };
    throw new ApiProblem(
      res.status,
      typeof problem.code === 'string' ? problem.code : 'http_error',
      typeof problem.detail === 'string' ? problem.detail : `HTTP ${res.status}`,
      typeof problem.parameter === 'string' ? problem.parameter : null,
    );
  }
  return body;
}
