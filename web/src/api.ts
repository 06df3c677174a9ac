// The public REST API as the page uses it: the user's key from localStorage as a Bearer
// token, problem+json errors turned into ApiProblem, and one in-memory copy per URL for the
// life of the page (the data changes hourly at most; switching tabs should not refetch).

import { isLoopbackHost } from '../../src/http/loopback.js';

const KEY_STORAGE = 'krus-dashboard.apiKey';
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

export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const qs = params.toString();
  return `${BASE}${path}${qs ? `?${qs}` : ''}`;
}

/** GET one endpoint; the same URL is fetched once per page load unless it failed. */
export function api<T>(path: string, query: Query = {}): Promise<T> {
  const url = apiUrl(path, query);
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
